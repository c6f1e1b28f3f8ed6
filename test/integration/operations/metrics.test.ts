import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { metricsRoute } from '../../../queries/operations/metrics.ts';
import { SyncReport } from '../../../services/content/sync-report.ts';
import { createPool } from '../../../src/db/pool.ts';
import { instrumentEventStore } from '../../../src/event-store/instrumented.ts';
import type { RouteModule } from '../../../src/http/routes.ts';
import { eventsAppended, syncMetrics } from '../../../src/metrics-registry.ts';
import { checkpoints } from '../../../src/projection/checkpoints.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import {
  NOTE_WRITTEN,
  noteStream,
  notesProjection,
  poisonSwitch,
  writeNotes,
} from '../../support/rebuild-fixtures.ts';

const TOKEN = 'metrics-token-for-tests';

const pingRoute: RouteModule = (app) => {
  const schema = { response: { 200: z.object({ ok: z.boolean() }) } };
  app.get('/test/ping/:id', { config: { access: 'public' }, schema }, async () => ({ ok: true }));
};

const test = suite<{ t: TestApp }>('GET /metrics');

test.before(async (ctx) => {
  poisonSwitch.armed = true;
  ctx.t = await startTestApp({
    projections: [notesProjection()],
    routes: [metricsRoute, pingRoute],
    env: { METRICS_TOKEN: TOKEN },
  });
});

test.after(async (ctx) => {
  await ctx.t.close();
});

const scrape = async (t: TestApp, authorization?: string) =>
  t.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });

/** The value of one sample line, e.g. `stk_projection_lag_events{projection="ops_notes"}`. */
function sample(body: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.indexOf('}'));
    if (wanted.every((w) => inside.split(',').includes(w)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

test('with METRICS_TOKEN set, a scrape needs that bearer token', async ({ t }) => {
  const none = await scrape(t);
  assert.is(none.statusCode, 401);
  assert.match(String(none.headers['www-authenticate']), /Bearer/);
  assert.is(none.json().code, 'unauthorized');
  assert.is((await scrape(t, `Bearer ${TOKEN}x`)).statusCode, 401);
  assert.is((await scrape(t, `Basic ${TOKEN}`)).statusCode, 401);
  const ok = await scrape(t, `Bearer ${TOKEN}`);
  assert.is(ok.statusCode, 200);
  assert.match(String(ok.headers['content-type']), /text\/plain/);
  assert.match(ok.body, /# TYPE stk_http_request_duration_seconds histogram/);
});

test('request durations are counted by route template and status', async ({ t }) => {
  const before = sample(
    (await scrape(t, `Bearer ${TOKEN}`)).body,
    'stk_http_request_duration_seconds_count',
    {
      route: '/test/ping/:id',
      status: '200',
    },
  );
  for (const id of ['a', 'b', 'c']) await t.app.inject({ method: 'GET', url: `/test/ping/${id}` });
  await t.app.inject({ method: 'GET', url: '/no/such/route' });
  const body = (await scrape(t, `Bearer ${TOKEN}`)).body;
  const count = sample(body, 'stk_http_request_duration_seconds_count', {
    route: '/test/ping/:id',
    status: '200',
  });
  assert.is(count, (before ?? 0) + 3);
  assert.ok(
    (sample(body, 'stk_http_request_duration_seconds_count', { route: 'unmatched', status: '404' }) ?? 0) >=
      1,
  );
  assert.not.match(body, /\/test\/ping\/a/);
});

test('projection lag and state: a poisoned projection shows failed and its lag', async ({ t }) => {
  await writeNotes(t.deps.store, 5, { seed: 'm-' });
  await t.deps.store.append(noteStream('m-bad'), [
    { type: NOTE_WRITTEN, data: { noteId: 'm-bad', author: 'x', text: 'boom', poison: true } },
  ]);
  await writeNotes(t.deps.store, 3, { seed: 'm-after-' });
  await eventually(
    'the projection to stop at the poison event',
    async () => (await checkpoints.get(t.db.pool, 'ops_notes'))?.state === 'failed',
  );
  const body = (await scrape(t, `Bearer ${TOKEN}`)).body;
  assert.is(sample(body, 'stk_projection_state', { projection: 'ops_notes', state: 'failed' }), 1);
  assert.is(sample(body, 'stk_projection_state', { projection: 'ops_notes', state: 'running' }), 0);
  assert.is(sample(body, 'stk_projection_lag_events', { projection: 'ops_notes' }), 4);
  assert.ok((sample(body, 'stk_projection_lag_seconds', { projection: 'ops_notes' }) ?? -1) >= 0);
  assert.is(sample(body, 'stk_projection_events_applied', { projection: 'ops_notes' }), 5);
});

test('both pools are reported: requests and background work, each its own connections', async ({ t }) => {
  const background = createPool(t.db.url, 3);
  const held = await background.connect();
  t.deps.backgroundPool = background;
  try {
    const body = (await scrape(t, `Bearer ${TOKEN}`)).body;
    const of = (pool: string, state: string) => sample(body, 'stk_db_pool_connections', { pool, state });
    assert.is(of('background', 'total'), 1, 'the one connection held on the background pool');
    assert.is(of('background', 'idle'), 0);
    assert.is(of('background', 'waiting'), 0);
    assert.is(of('requests', 'total'), t.deps.pool.totalCount);
    assert.ok((of('requests', 'idle') ?? 0) >= 1, 'the scrape returned its connection to the requests pool');
  } finally {
    t.deps.backgroundPool = undefined;
    held.release();
    await background.end();
  }
});

test('events appended are counted by type through the instrumented store', async ({ t }) => {
  const store = instrumentEventStore(t.deps.store);
  const before = (await eventsAppended.get()).values.find((v) => v.labels.type === NOTE_WRITTEN)?.value ?? 0;
  await writeNotes(store, 4, { seed: 'count-', notes: 4 });
  const body = (await scrape(t, `Bearer ${TOKEN}`)).body;
  assert.is(sample(body, 'stk_events_appended_total', { type: NOTE_WRITTEN }), before + 4);
});

test('a sync report counts its items under its source', async ({ t }) => {
  const before = (await scrape(t, `Bearer ${TOKEN}`)).body;
  const count = (body: string, name: string, labels: Record<string, string>) =>
    sample(body, name, labels) ?? 0;
  const report = new SyncReport('named');
  report.stored(0, 'a', '2026-01-01T00:00:00Z');
  report.failed(1, { slug: 'b', kind: 'blog', code: 'report_test_failure', message: 'x' });
  report.failed(2, { slug: '', kind: 'blog', code: 'report_test_page', message: 'x' });
  new SyncReport().stored(0, 'not counted', '2026-01-01T00:00:00Z');
  const after = (await scrape(t, `Bearer ${TOKEN}`)).body;
  const items = (body: string, result: string) =>
    count(body, 'stk_sync_items_total', { source: 'named', result });
  assert.is(items(after, 'stored'), items(before, 'stored') + 1);
  assert.is(items(after, 'failed'), items(before, 'failed') + 1);
  assert.is(count(after, 'stk_sync_errors_total', { source: 'named', code: 'report_test_page' }), 1);
});

test('sync counters', async ({ t }) => {
  syncMetrics.itemStored('full');
  syncMetrics.itemStored('full');
  syncMetrics.itemFailed('named', 'not_found');
  syncMetrics.itemFailed('full', 'upstream_timeout', false);
  const body = (await scrape(t, `Bearer ${TOKEN}`)).body;
  assert.ok((sample(body, 'stk_sync_items_total', { source: 'full', result: 'stored' }) ?? 0) >= 2);
  assert.ok((sample(body, 'stk_sync_items_total', { source: 'named', result: 'failed' }) ?? 0) >= 1);
  assert.ok((sample(body, 'stk_sync_errors_total', { source: 'full', code: 'upstream_timeout' }) ?? 0) >= 1);
});

test.run();

const open = suite<{ t: TestApp }>('GET /metrics without METRICS_TOKEN');
open.before(async (ctx) => {
  ctx.t = await startTestApp({ routes: [metricsRoute] });
});
open.after(async (ctx) => {
  await ctx.t.close();
});
open('is public', async ({ t }) => {
  const res = await scrape(t);
  assert.is(res.statusCode, 200);
  assert.match(res.body, /stk_process_cpu_seconds_total/);
});
open.run();
