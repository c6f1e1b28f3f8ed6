import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sampleArticles } from '../../support/content-samples.ts';
import { type FakeContentApi, startFakeContentApi } from '../../support/fake-content-api.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { type ServiceProcess, startServiceProcess } from '../../support/service-process.ts';

/**
 * The real service process with distinctive secret values, driven through sync, pages and error paths;
 * then every log line, every response and every stored event is searched for those values.
 */
const tag = randomBytes(6).toString('hex');
const CONTENT_KEY = `content-key-${tag}-DO-NOT-LEAK`;
const CRON_SECRET = `cron-secret-${tag}-DO-NOT-LEAK`;
const DB_PASSWORD = `db-password-${tag}-DO-NOT-LEAK`;
const DB_ROLE = `leakcheck_${tag}`;

interface Context {
  db: TestDatabase;
  databaseUrl: string;
  fake: FakeContentApi;
  service: ServiceProcess;
  seen: string[];
}

const test = suite<Context>('content secrets never leak');

/** A login role with a distinctive password, so DATABASE_URL itself is a value worth searching for. */
async function distinctiveDatabaseUrl(db: TestDatabase): Promise<string> {
  const admin = new pg.Client(process.env.STK_TEST_ADMIN_URL);
  await admin.connect();
  try {
    await admin.query(`CREATE ROLE ${DB_ROLE} LOGIN SUPERUSER PASSWORD '${DB_PASSWORD}'`);
    const url = new URL(db.url);
    url.username = DB_ROLE;
    url.password = DB_PASSWORD;
    return url.toString();
  } catch {
    // A server we may not create roles on (DATABASE_URL given): search for its URL as it is.
    return db.url;
  } finally {
    await admin.end();
  }
}

test.before(async (context) => {
  context.seen = [];
  context.db = await freshDatabase();
  context.databaseUrl = await distinctiveDatabaseUrl(context.db);
  context.fake = await startFakeContentApi({ apiKey: CONTENT_KEY });
  context.fake.setArticles(sampleArticles(context.fake.url));
  context.service = await startServiceProcess({
    DATABASE_URL: context.databaseUrl,
    CONTENT_API_URL: context.fake.url,
    CONTENT_API_KEY: CONTENT_KEY,
    CRON_SECRET,
    CONTENT_API_TIMEOUT_MS: '1000',
    SITE_URL: 'https://site.test',
    LOG_LEVEL: 'debug',
  });
});

test.after(async ({ service, fake, db }) => {
  await service?.stop();
  await fake?.close();
  await db?.drop();
  const admin = new pg.Client(process.env.STK_TEST_ADMIN_URL);
  await admin.connect();
  await admin.query(`DROP ROLE IF EXISTS ${DB_ROLE}`).catch(() => {});
  await admin.end();
});

/** A request whose status, headers and body are all kept for the final search. */
async function call(ctx: Context, path: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(`${ctx.service.url}${path}`, init);
  const body = await res.text();
  ctx.seen.push(`${res.status} ${path}\n${JSON.stringify([...res.headers])}\n${body}`);
  return new Response(res.status === 304 ? null : body, { status: res.status, headers: res.headers });
}

const json = { 'content-type': 'application/json' };

test('sync, pages and error paths of the real process', async (ctx) => {
  assert.equal(await (await call(ctx, '/api/content/sync')).json(), { ok: true });
  assert.is(
    (await call(ctx, '/api/content/sync', { headers: { authorization: 'Bearer wrong' } })).status,
    401,
  );
  assert.is(
    (await call(ctx, '/api/content/sync', { headers: { authorization: `Bearer ${CRON_SECRET}x` } })).status,
    401,
  );
  const full = await call(ctx, '/api/content/sync', { headers: { authorization: `Bearer ${CRON_SECRET}` } });
  assert.is(full.status, 200);
  assert.is((await full.json()).synced, 3);

  ctx.fake.failNext({ slug: 'tolerant-reading' }, { status: 500, times: 3 });
  ctx.fake.overrideDetail('mismatch', { slug: 'other', html: '<p/>' });
  const named = await call(ctx, '/api/content/sync', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({
      slugs: ['getting-started', 'tolerant-reading', 'missing', 'mismatch', 'bad slug'],
    }),
  });
  assert.is(named.status, 200);
  const namedBody = await named.json();
  assert.is(namedBody.synced, 1);
  assert.is(namedBody.errors.length, 4);

  ctx.fake.hangNext('detail', 3);
  const timedOut = await call(ctx, '/api/content/sync', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ slug: 'hostile-html' }),
  });
  assert.is((await timedOut.json()).errors[0].code, 'upstream_timeout');

  for (const body of ['{nope', '{"nothing":true}']) {
    assert.is((await call(ctx, '/api/content/sync', { method: 'POST', headers: json, body })).status, 400);
  }
  for (const path of ['/blog/getting-started', '/blog', '/sitemap.xml', '/blog/rss.xml', '/blog/missing']) {
    await call(ctx, path);
  }
  for (const path of ['/openapi.json', '/readyz', '/healthz', '/no/such/route']) await call(ctx, path);

  // The content API gone: a full sync fails on its first page, the pages still answer.
  await ctx.fake.close();
  const down = await call(ctx, '/api/content/sync', {
    method: 'POST',
    headers: { authorization: `Bearer ${CRON_SECRET}` },
  });
  assert.is(down.status, 502);
  assert.is((await call(ctx, '/blog/getting-started')).status, 200);
});

test('no secret in any log line, response or event', async (ctx) => {
  // A clean SIGTERM: the shutdown's own log lines are part of what is searched.
  assert.is(await ctx.service.stop(), 0, 'the service exits 0 on SIGTERM');
  const log = ctx.service.output();
  assert.ok(log.includes('"msg":"request"'), 'the process logged its requests');
  const { rows } = await ctx.db.pool.query(
    'SELECT type, data::text AS data, metadata::text AS metadata FROM events',
  );
  assert.ok(rows.length >= 3, 'events were stored');
  const events = rows.map((r) => `${r.type} ${r.data} ${r.metadata}`).join('\n');
  const secrets: Record<string, string> = {
    CONTENT_API_KEY: CONTENT_KEY,
    CRON_SECRET,
    DATABASE_URL: ctx.databaseUrl,
  };
  if (ctx.databaseUrl.includes(DB_PASSWORD)) secrets.DATABASE_URL_PASSWORD = DB_PASSWORD;
  for (const [name, value] of Object.entries(secrets)) {
    assert.not.ok(log.includes(value), `${name} appears in the log`);
    assert.not.ok(events.includes(value), `${name} appears in an event`);
    for (const response of ctx.seen)
      assert.not.ok(response.includes(value), `${name} appears in: ${response.slice(0, 80)}`);
  }
});

test.run();
