/**
 * The real service process with EVENTSTORE_URL pointing at the gRPC double of EventStoreDB (in this
 * process, on loopback): accounts, a table, a column PATCH, a named content sync and an operator's
 * projection rebuild all go through the EventStoreDB adapter, and the events land in the double, not
 * in PostgreSQL (which keeps the read models only). See docs/eventstoredb.md for what the double proves.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connectEventStoreDb } from '../../../src/event-store/eventstoredb.ts';
import { type BootstrappedAccount, bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { runAdmin } from '../../support/cli.ts';
import { sampleArticles } from '../../support/content-samples.ts';
import { type EsdbDouble, startEsdbDouble } from '../../support/esdb-double/index.ts';
import { eventually } from '../../support/eventually.ts';
import { type FakeContentApi, startFakeContentApi } from '../../support/fake-content-api.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { insertRows } from '../../support/rows.ts';
import { httpColumnTable, runEnded } from '../../support/runs.ts';
import { type ServiceProcess, startServiceProcess } from '../../support/service-process.ts';
import { createColumn, createTable } from '../../support/tables.ts';
import { testRegistry } from '../../support/test-streams.ts';

const CONTENT_KEY = 'esdb-e2e-content-key';
const CRON_SECRET = 'esdb-e2e-cron-secret';
const SLUG = 'getting-started';

interface Ctx {
  esdb: EsdbDouble;
  db: TestDatabase;
  fake: FakeContentApi;
  service: ServiceProcess;
  /** What the service and the CLI need besides their own defaults. */
  env: Record<string, string>;
  account: BootstrappedAccount;
  tableId: string;
  columnId: string;
}

const test = suite<Ctx>('e2e: the service over the EventStoreDB double');

test.before(async (ctx) => {
  ctx.esdb = await startEsdbDouble();
  ctx.db = await freshDatabase();
  ctx.fake = await startFakeContentApi({ apiKey: CONTENT_KEY, articles: sampleArticles() });
  ctx.env = {
    EVENTSTORE_URL: ctx.esdb.url,
    DATABASE_URL: ctx.db.url,
    CONTENT_API_URL: ctx.fake.url,
    CONTENT_API_KEY: CONTENT_KEY,
    CRON_SECRET,
    SITE_URL: 'https://site.test',
  };
  ctx.service = await startServiceProcess({ ...ctx.env, LOG_LEVEL: 'warn' });
});

test.after(async ({ service, fake, db, esdb }) => {
  await service?.stop();
  await fake?.close();
  await db?.drop();
  await esdb?.stop();
});

/** The events of the service in the double's log: everything but what the server writes for itself. */
const oursIn = (events: EsdbDouble['log']['all']) =>
  events.filter((e) => !e.stream.startsWith('$') && !e.type.startsWith('$'));

/** The service's output, for a failing assertion's message. */
const logs = (ctx: Ctx) => `\n--- service output ---\n${ctx.service.output()}`;

test('bootstrap answers 201 and its key works', async (ctx) => {
  ctx.account = await bootstrapAccount(ctx.service.url);
  const me = await call(ctx.service.url, 'GET', '/api/me', { headers: bearer(ctx.account.apiKey) });
  assert.is(me.status, 200, logs(ctx));
  assert.is(me.body.userData.id, ctx.account.userId);
  assert.is(me.body.organization.id, ctx.account.organizationId);
  assert.is(me.body.keyMetadata.id, ctx.account.keyId);
});

test('a table, a column, a PATCH read back at once', async (ctx) => {
  const key = ctx.account.apiKey;
  ctx.tableId = await createTable(ctx.service.url, key, 'Leads over EventStoreDB');
  const table = await call(ctx.service.url, 'GET', `/api/tables/${ctx.tableId}`, { headers: bearer(key) });
  assert.is(table.status, 200, logs(ctx));
  assert.is(table.body.name, 'Leads over EventStoreDB');

  const column = await createColumn(ctx.service.url, key, ctx.tableId, {
    label: 'Domain',
    kind: 'input',
    dataType: 'text',
  });
  ctx.columnId = column.id;
  const path = `/api/tables/${ctx.tableId}/columns/${ctx.columnId}`;
  const patched = await call(ctx.service.url, 'PATCH', path, {
    headers: bearer(key),
    // An input column: autoRun is refused on it (nothing to run), so the PATCH moves it instead.
    body: { label: 'Company domain', isImportant: true, position: 3.5 },
  });
  assert.is(patched.status, 200, JSON.stringify(patched.body) + logs(ctx));
  assert.is(patched.body.label, 'Company domain');

  const read = await call(ctx.service.url, 'GET', path, { headers: bearer(key) });
  assert.is(read.status, 200);
  assert.equal(
    { label: read.body.label, isImportant: read.body.isImportant, position: read.body.position },
    { label: 'Company domain', isImportant: true, position: 3.5 },
  );
  const list = await call(ctx.service.url, 'GET', `/api/tables/${ctx.tableId}/columns`, {
    headers: bearer(key),
  });
  assert.equal(
    list.body.map((c: { id: string; label: string }) => [c.id, c.label]),
    [[ctx.columnId, 'Company domain']],
  );
});

test('a column run starts in steps (no multi-stream append): claim, reservation, start, in that order', async (ctx) => {
  const key = ctx.account.apiKey;
  // Port 9 on loopback (discard): the rows' calls fail, and the run still starts, works and ends.
  const { tableId, columns } = await httpColumnTable(ctx.service.url, key, 'http://127.0.0.1:9');
  await insertRows(ctx.service.url, key, tableId, [{ n: '1' }, { n: '2' }]);
  const path = `/api/tables/${tableId}/columns/${columns.result.id}/run`;
  const started = await call(ctx.service.url, 'POST', path, { headers: bearer(key), body: { scope: 'all' } });
  assert.is(started.status, 202, JSON.stringify(started.body) + logs(ctx));
  const runId = started.body.id as string;
  await runEnded(ctx.service.url, key, runId);
  // The column is released after the run's end is recorded (the end's last step).
  const ofRun = await eventually('the column released', () => {
    const found = oursIn(ctx.esdb.log.all).filter((e) =>
      ['ColumnRunClaimed', 'CreditsReserved', 'RunCreated', 'ColumnRunReleased'].includes(e.type),
    );
    return found.some((e) => e.type === 'ColumnRunReleased') ? found : undefined;
  });
  assert.equal(
    ofRun.map((e) => e.type),
    ['ColumnRunClaimed', 'CreditsReserved', 'RunCreated', 'ColumnRunReleased'],
    'each its own append, in the order the workflow takes them',
  );
  const again = await call(ctx.service.url, 'POST', path, { headers: bearer(key), body: { scope: 'all' } });
  assert.is(again.status, 202, 'the column was released by the end');
  await runEnded(ctx.service.url, key, again.body.id);
});

test('a named content sync stores the article and /blog/<slug> serves it', async (ctx) => {
  const synced = await call(ctx.service.url, 'POST', '/api/content/sync', {
    body: { items: [{ slug: SLUG, kind: 'blog' }] },
  });
  assert.is(synced.status, 200, JSON.stringify(synced.body) + logs(ctx));
  assert.is(synced.body.synced, 1);
  assert.equal(synced.body.errors, []);
  assert.equal(
    synced.body.items.map((i: { slug: string }) => i.slug),
    [SLUG],
  );
  // Only the named slug was fetched.
  assert.equal(
    ctx.fake.detailRequests().map((r) => r.path),
    [`/posts/${SLUG}`],
  );
  const page = await call(ctx.service.url, 'GET', `/blog/${SLUG}`);
  assert.is(page.status, 200, logs(ctx));
  assert.match(page.body, 'Getting started with the blog');
  assert.match(page.body, 'The site keeps its own copy of every article.');
  assert.is((await call(ctx.service.url, 'GET', '/blog/tolerant-reading')).status, 404);
});

test('the events went to the double, none to the PostgreSQL events table', async (ctx) => {
  const ours = oursIn(ctx.esdb.log.all);
  const categories = new Set(ours.map((e) => e.stream.slice(0, e.stream.indexOf('-'))));
  for (const category of ['email', 'organization', 'user', 'apikey', 'table', 'column', 'article'])
    assert.ok(categories.has(category), `no ${category} stream in the double: ${[...categories]}`);
  assert.ok(ours.some((e) => e.type === 'ArticleSynced'));

  // Read back through the adapter, the way the service reads them.
  const store = connectEventStoreDb(ctx.esdb.url, testRegistry);
  try {
    const all = await store.readAll({ limit: 10_000 });
    assert.equal(
      all.map((e) => e.id),
      ours.map((e) => e.id),
    );
    const column = await store.readStream(`column-${ctx.tableId}.${ctx.columnId}`);
    assert.equal(
      column.map((e) => e.type),
      ['ColumnCreated', 'ColumnPatched'],
    );
    assert.is(column[1]?.metadata.actor, ctx.account.keyId);
  } finally {
    await store.close();
  }

  const { rows } = await ctx.db.pool.query('SELECT count(*)::int AS n FROM events');
  assert.is(rows[0].n, 0, 'events were written to PostgreSQL');
});

/**
 * `lastUsedAt` is recorded after a call has answered, at most once a minute, so a snapshot's own calls
 * may move it on between two snapshots: it is the one field left out of the comparison (that a rebuild
 * keeps it is tested in test/integration/accounts/auth-keys.test.ts).
 */
// biome-ignore lint/suspicious/noExplicitAny: the /api/me answer is arbitrary JSON
function withoutLastUsed(me: any) {
  const { lastUsedAt: _, ...keyMetadata } = me.keyMetadata;
  return { ...me, keyMetadata };
}

test('stk admin projections rebuild --all over the double: the read models answer the same', async (ctx) => {
  const key = ctx.account.apiKey;
  const columnPath = `/api/tables/${ctx.tableId}/columns/${ctx.columnId}`;
  const snapshot = async () => ({
    me: withoutLastUsed((await call(ctx.service.url, 'GET', '/api/me', { headers: bearer(key) })).body),
    table: (await call(ctx.service.url, 'GET', `/api/tables/${ctx.tableId}`, { headers: bearer(key) })).body,
    column: (await call(ctx.service.url, 'GET', columnPath, { headers: bearer(key) })).body,
    page: (await call(ctx.service.url, 'GET', `/blog/${SLUG}`)).body,
  });
  const before = await snapshot();
  const eventsBefore = ctx.esdb.log.all.length;

  const run = await runAdmin(ctx.db.url, ['projections', 'rebuild', '--all', '--json'], ctx.env);
  assert.is(run.code, 0, run.stderr + logs(ctx));
  const results: { projection: string; outcome: string; processed: number }[] = JSON.parse(run.stdout);
  assert.equal(results.map((r) => r.outcome).sort(), Array(results.length).fill('swapped'));
  const processed = Object.fromEntries(results.map((r) => [r.projection, r.processed]));
  // Each rebuild read its events from the double (the PostgreSQL events table is empty).
  for (const name of ['columns', 'tables', 'site_content', 'api_keys'])
    assert.ok((processed[name] ?? 0) > 0, `${name} rebuilt from no events: ${run.stdout}`);

  assert.equal(await snapshot(), before);
  // The rebuild wrote no events of ours, and the live runners follow on from the swapped tables.
  assert.equal(oursIn(ctx.esdb.log.all.slice(eventsBefore)), []);
  const patched = await call(ctx.service.url, 'PATCH', columnPath, {
    headers: bearer(key),
    body: { label: 'Domain after the rebuild' },
  });
  assert.is(patched.status, 200, logs(ctx));
  const read = await call(ctx.service.url, 'GET', columnPath, { headers: bearer(key) });
  assert.is(read.body.label, 'Domain after the rebuild');
  const { rows: pg } = await ctx.db.pool.query('SELECT count(*)::int AS n FROM events');
  assert.is(pg[0].n, 0);
});

test('stk admin projections status reads the head of the double, past its system events', async (ctx) => {
  const store = connectEventStoreDb(ctx.esdb.url, testRegistry);
  let head: { commit: string; prepare: string };
  try {
    const position = await store.head();
    head = { commit: String(position.commit), prepare: String(position.prepare) };
  } finally {
    await store.close();
  }
  const last = oursIn(ctx.esdb.log.all).at(-1);
  assert.equal(head, { commit: String(last?.position.commit), prepare: String(last?.position.prepare) });

  const run = await runAdmin(ctx.db.url, ['projections', 'status', '--json'], ctx.env);
  assert.is(run.code, 0, run.stderr);
  const reports: { name: string; head: unknown; runnerActive: boolean; rebuild: unknown }[] = JSON.parse(
    run.stdout,
  );
  assert.ok(reports.length >= 6, run.stdout);
  for (const report of reports) {
    assert.equal(report.head, head, report.name);
    assert.ok(report.runnerActive, `${report.name}: no runner holds it`);
    assert.is(report.rebuild, null, `${report.name}: a rebuild is left over`);
  }
});

test('SIGTERM stops it cleanly, and a restart follows on from checkpoints kept as EventStoreDB positions', async (ctx) => {
  // The EventStoreDB connection must not hold the process: it exits 0 on its own.
  assert.is(await ctx.service.stop('SIGTERM'), 0, logs(ctx));
  const { rows: kept } = await ctx.db.pool.query(
    `SELECT commit_position::text AS commit, prepare_position::text AS prepare
       FROM projection_checkpoints WHERE name = 'columns'`,
  );
  const mine = ctx.esdb.log.all.filter((e) => e.stream === `column-${ctx.tableId}.${ctx.columnId}`).at(-1);
  assert.equal(kept[0], { commit: String(mine?.position.commit), prepare: String(mine?.position.prepare) });

  ctx.service = await startServiceProcess({ ...ctx.env, LOG_LEVEL: 'warn' });
  const key = ctx.account.apiKey;
  const columnPath = `/api/tables/${ctx.tableId}/columns/${ctx.columnId}`;
  const patched = await call(ctx.service.url, 'PATCH', columnPath, {
    headers: bearer(key),
    body: { label: 'Domain after a restart' },
  });
  assert.is(patched.status, 200, logs(ctx));
  const list = await call(ctx.service.url, 'GET', `/api/tables/${ctx.tableId}/columns`, {
    headers: bearer(key),
  });
  // Nothing applied twice, nothing skipped.
  assert.equal(
    list.body.map((c: { id: string; label: string }) => [c.id, c.label]),
    [[ctx.columnId, 'Domain after a restart']],
  );
  // The history is a stream read through the adapter.
  const history = await call(ctx.service.url, 'GET', `${columnPath}/history`, { headers: bearer(key) });
  assert.is(history.status, 200, logs(ctx));
  assert.equal(
    history.body.data.map(
      (h: { revision: number; type: string; actor: string; changes: { label?: string } }) => [
        h.revision,
        h.type,
        h.actor,
        h.changes.label,
      ],
    ),
    [
      [0, 'ColumnCreated', ctx.account.keyId, 'Domain'],
      [1, 'ColumnPatched', ctx.account.keyId, 'Company domain'],
      [2, 'ColumnPatched', ctx.account.keyId, 'Domain after the rebuild'],
      [3, 'ColumnPatched', ctx.account.keyId, 'Domain after a restart'],
    ],
  );
  assert.is((await call(ctx.service.url, 'GET', `/blog/${SLUG}`)).status, 200);
  assert.is(await ctx.service.stop('SIGTERM'), 0, logs(ctx));
});

test.run();
