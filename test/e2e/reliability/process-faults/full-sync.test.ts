import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generatedArticle } from '../../../support/content-samples.ts';
import { eventually } from '../../../support/eventually.ts';
import { type FakeContentApi, startFakeContentApi } from '../../../support/fake-content-api.ts';
import { freshDatabase, type TestDatabase } from '../../../support/postgres.ts';
import { Services } from '../../../support/process-faults.ts';
import type { ServiceProcess } from '../../../support/service-process.ts';

/**
 * A full sync killed midway (SIGKILL, no shutdown path): every article stored before the kill stays
 * stored, whole, and the next full sync finishes the rest without storing any article twice.
 */
const ARTICLES = Array.from({ length: 400 }, (_, i) => generatedArticle(i, 2_000));
const CRON = 'crash-test-cron-secret';

interface Context {
  db: TestDatabase;
  fake: FakeContentApi;
  services: Services;
  service?: ServiceProcess;
}

const test = suite<Context>('full sync killed midway');

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.fake = await startFakeContentApi({ apiKey: 'crash-key' });
  ctx.fake.setArticles(ARTICLES);
  ctx.services = new Services({
    DATABASE_URL: ctx.db.url,
    CONTENT_API_URL: ctx.fake.url,
    CONTENT_API_KEY: 'crash-key',
    CRON_SECRET: CRON,
  });
});
test.after(async (ctx) => {
  await ctx.services.close();
  await ctx.fake.close();
  await ctx.db.drop();
});

const start = (ctx: Context) => ctx.services.start();

const fullSync = (service: ServiceProcess) =>
  fetch(`${service.url}/api/content/sync`, { headers: { authorization: `Bearer ${CRON}` } });

const eventsPerStream = async (ctx: Context) =>
  (
    await ctx.db.pool.query<{ stream_name: string; n: number; html: number }>(
      `SELECT stream_name, count(*)::int AS n, min(length(data->>'html'))::int AS html
       FROM events WHERE type = 'ArticleSynced' GROUP BY stream_name`,
    )
  ).rows;

test('what was stored before the kill stays; the next sync stores the rest, nothing twice', async (ctx) => {
  ctx.service = await start(ctx);
  // Slow answers, so that the kill lands while articles are still being fetched and stored.
  ctx.fake.behaviour.delayMs = 15;
  const killed = fullSync(ctx.service).then(
    (res) => res.status,
    () => 'connection lost',
  );
  await eventually('some articles stored', async () => (await eventsPerStream(ctx)).length >= 40);
  await ctx.services.kill(ctx.service);
  assert.is(await killed, 'connection lost');

  const survived = await eventsPerStream(ctx);
  assert.ok(
    survived.length >= 40 && survived.length < ARTICLES.length,
    `a partial sync survived (${survived.length} of ${ARTICLES.length} articles)`,
  );
  assert.ok(
    survived.every((s) => s.n === 1 && s.html > 1_000),
    'each stored article is one whole event',
  );

  ctx.fake.behaviour.delayMs = 0;
  ctx.service = await start(ctx);
  const res = await fullSync(ctx.service);
  assert.is(res.status, 200);
  const body = await res.json();
  assert.is(body.synced, ARTICLES.length);
  assert.equal(body.errors, []);
  const after = await eventsPerStream(ctx);
  assert.is(after.length, ARTICLES.length);
  assert.ok(
    after.every((s) => s.n === 1),
    'the articles stored before the kill were not stored again',
  );
  const rows = await ctx.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM site_content');
  assert.is(rows.rows[0]!.n, ARTICLES.length, 'site_content shows every article');
});

test.run();
