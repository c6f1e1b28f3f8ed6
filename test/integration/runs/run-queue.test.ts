import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { grantCredits } from '../../../commands/accounts/grant-credits.ts';
import { createAuthenticator } from '../../../src/auth/authenticator.ts';
import { handleCommand } from '../../../src/command.ts';
import { organizationStream } from '../../../src/domain/accounts/streams.ts';
import { runQueueWorker } from '../../../src/domain/runs/queue-worker.ts';
import { RUN_QUEUE, RUN_ROW, runQueueItemId } from '../../../src/domain/runs/run-state.ts';
import { service } from '../../../src/modules.ts';
import type { WorkItem } from '../../../src/work/queue.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { insertRows, listAll } from '../../support/rows.ts';
import { httpColumnTable } from '../../support/runs.ts';

/*
 * A run's queue worker (src/domain/runs/queue-worker.ts), worked by hand: the service runs no workers
 * here, so what the item does, and what a stop before it does, is all there is to see.
 */
const test = suite<{ t: TestApp; key: string }>("column runs: a run's rows queued off the start request");

test.before.each(async (ctx) => {
  ctx.t = await startTestApp({
    projections: service.projections,
    routes: service.routes,
    authenticator: createAuthenticator,
    env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true' },
  });
  const account = await bootstrapAccount(ctx.t.app);
  ctx.key = account.apiKey;
  // Enough for every row below (a starter balance would leave some unfunded).
  await handleCommand({
    store: ctx.t.deps.store,
    stream: organizationStream.name(account.organizationId),
    decider: grantCredits,
    command: { organizationId: account.organizationId, amount: 1000, reason: 'test' },
    metadata: {},
    now: new Date(),
  });
});
test.after.each(async ({ t }) => t.close());

async function startedRun({ t, key }: { t: TestApp; key: string }, rows: number) {
  const { tableId, columns } = await httpColumnTable(t.app, key, 'http://127.0.0.1:9');
  await insertRows(
    t.app,
    key,
    tableId,
    Array.from({ length: rows }, (_, i) => ({ n: String(i) })),
  );
  const res = await call(t.app, 'POST', `/api/tables/${tableId}/columns/${columns.result.id}/run`, {
    headers: bearer(key),
    body: { scope: 'all' },
  });
  assert.is(res.status, 202, JSON.stringify(res.body));
  assert.is(res.body.counts.skipped, 0, 'every row funded');
  const runId: string = res.body.id;
  // The run reactor's item, enqueued once the reactor has seen the start.
  const item = await eventually('the run-queue item', async () => {
    const { rows: found } = await t.db.pool.query('SELECT * FROM work_items WHERE id = $1', [
      runQueueItemId(runId),
    ]);
    return found[0];
  });
  assert.is(item.kind, RUN_QUEUE);
  const work: WorkItem = {
    id: item.id,
    kind: item.kind,
    organizationId: item.organization_id,
    groupKey: item.group_key,
    payload: item.payload,
    attempts: 1,
    runAt: item.run_at,
    createdAt: item.created_at,
  };
  return { tableId, runId, work };
}

const rowItems = async (t: TestApp, runId: string) =>
  (
    await t.db.pool.query(`SELECT payload FROM work_items WHERE kind = $1 AND group_key = $2`, [
      RUN_ROW,
      runId,
    ])
  ).rows.map((r) => r.payload);

test('the rows are queued a step at a time, each item carrying its cells; done again, nothing doubles', async (ctx) => {
  const { tableId, runId, work } = await startedRun(ctx, 70);
  assert.equal(await rowItems(ctx.t, runId), [], 'nothing enqueued by the start request');
  const worker = runQueueWorker(ctx.t.deps);
  assert.equal(await worker.handle(work, new AbortController().signal), { status: 'done' });
  const items = await rowItems(ctx.t, runId);
  assert.is(items.length, 70, 'a first step of 64, then the rest');
  assert.ok(items.every((p) => p.runId === runId && typeof p.cells === 'object'));
  assert.equal(new Set(items.map((p) => Object.values(p.cells)[0])).size, 70, "each row's own cells");
  assert.equal(await worker.handle(work, new AbortController().signal), { status: 'done' });
  assert.is((await rowItems(ctx.t, runId)).length, 70, 'worked again: no item twice');
  const { rows: queued } = await ctx.t.db.pool.query(
    `SELECT data FROM events WHERE stream_name = $1 AND type = 'RunRowsQueued' ORDER BY stream_revision`,
    [`run-${runId}`],
  );
  assert.equal(
    queued.map((e) => e.data.rowIds.length),
    [64, 6],
    'one event a step, once',
  );
  const rows = await eventually('the cells queued', async () => {
    const all = await listAll(ctx.t.app, ctx.key, tableId);
    return all.every((r) => r.cellStatus?.result?.status === 'queued') ? all : undefined;
  });
  assert.is(rows.length, 70);
});

test('stopped before its rows were queued: none is enqueued, every row is skipped', async (ctx) => {
  const { runId, work } = await startedRun(ctx, 5);
  const stopped = await call(ctx.t.app, 'POST', `/api/runs/${runId}/stop`, { headers: bearer(ctx.key) });
  assert.is(stopped.status, 200, JSON.stringify(stopped.body));
  assert.equal(await runQueueWorker(ctx.t.deps).handle(work, new AbortController().signal), {
    status: 'done',
  });
  assert.equal(await rowItems(ctx.t, runId), [], 'the stopped run took no rows');
  const run = await eventually('the rows counted skipped', async () => {
    const res = await call(ctx.t.app, 'GET', `/api/runs/${runId}`, { headers: bearer(ctx.key) });
    return res.body.counts?.skipped === 5 ? res.body : undefined;
  });
  assert.is(run.counts.queued, 0);
  const skipped = await call(ctx.t.app, 'GET', `/api/runs/${runId}/rows?status=skipped`, {
    headers: bearer(ctx.key),
  });
  assert.ok(skipped.body.data.every((r: { error: { code: string } }) => r.error.code === 'run_stopped'));
});

test.run();
