import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { grantCredits } from '../../../commands/accounts/grant-credits.ts';
import { createAuthenticator } from '../../../src/auth/authenticator.ts';
import { handleCommand } from '../../../src/command.ts';
import { organizationStream } from '../../../src/domain/accounts/streams.ts';
import { executorDepsFrom, executorsFrom } from '../../../src/domain/runs/executors/index.ts';
import { RUN_QUEUE, runQueueItemId } from '../../../src/domain/runs/run-state.ts';
import { runWorker } from '../../../src/domain/runs/run-worker.ts';
import { service } from '../../../src/modules.ts';
import type { WorkItem } from '../../../src/work/queue.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { insertRows, listAll } from '../../support/rows.ts';
import { type CountingTarget, httpColumnTable, startTarget } from '../../support/runs.ts';

/*
 * A run's driver (src/domain/runs/run-driver.ts), worked by hand through its worker: the service runs
 * no workers here, so every call the target counts and every event in the run's stream is the driver's.
 */
type Ctx = { t: TestApp; key: string; target: CountingTarget };
const test = suite<Ctx>("column runs: a run's rows driven by the one process holding the run");

const CONCURRENCY = 4;
/** The lease these tests drive runs under, as a worker of this process would hold it. */
const LEASE = { owner: 'test-driver' };

test.before.each(async (ctx) => {
  ctx.target = await startTarget({ delayMs: 5 });
  ctx.t = await startTestApp({
    projections: service.projections,
    routes: service.routes,
    authenticator: createAuthenticator,
    env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true', OUTBOUND_RATE_PER_HOST: '100000' },
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
test.after.each(async ({ t, target }) => {
  await t.close();
  await target.close();
});

async function startedRun({ t, key, target }: Ctx, rows: number) {
  const { tableId, columns } = await httpColumnTable(t.app, key, target.url, CONCURRENCY);
  const inserted = await insertRows(
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
  // Held as a worker's claim would hold it: a driver starts rows only under its item's lease.
  await t.db.pool.query(
    `UPDATE work_items SET status = 'leased', lease_owner = $2, lease_expires_at = now() + interval '1 hour'
     WHERE id = $1`,
    [item.id, LEASE.owner],
  );
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
  return { tableId, runId, work, rowIds: inserted.map((r: { id: string }) => r.id) };
}

const worker = (t: TestApp) => runWorker((deps) => executorsFrom(executorDepsFrom(deps)))(t.deps);

/** The run once every row is counted (no worker ends it here: its status stays `running`). */
const allCounted = (ctx: Ctx, runId: string) =>
  eventually('every row counted', async () => {
    const res = await call(ctx.t.app, 'GET', `/api/runs/${runId}`, { headers: bearer(ctx.key) });
    const { counts } = res.body;
    return counts && counts.queued + counts.running === 0 ? res.body : undefined;
  });

/** The run's own events of one type, in the stream's order. */
async function runEvents(t: TestApp, runId: string, type: string) {
  const { rows } = await t.db.pool.query(
    `SELECT data FROM events WHERE stream_name = $1 AND type = $2 ORDER BY stream_revision`,
    [`run-${runId}`, type],
  );
  return rows.map((r) => r.data);
}

test('every row called once, at most the concurrency at once; queued a step at a time; driven again, nothing doubles', async (ctx) => {
  const { tableId, runId, work, rowIds } = await startedRun(ctx, 70);
  assert.equal(await worker(ctx.t).handle(work, new AbortController().signal, LEASE), { status: 'done' });
  assert.is(ctx.target.counts.size, 70);
  assert.ok(
    [...ctx.target.counts.values()].every((n) => n === 1),
    'each row called once',
  );
  assert.ok(ctx.target.maxInFlight() <= CONCURRENCY, `${ctx.target.maxInFlight()} in flight at once`);
  assert.is(ctx.target.maxInFlight(), CONCURRENCY, "the run's concurrency used");
  const queued = await runEvents(ctx.t, runId, 'RunRowsQueued');
  assert.equal(
    queued.map((e) => e.rowIds.length),
    [64, 6],
    'one event a step',
  );
  const started = (await runEvents(ctx.t, runId, 'RunRowsStarted')).flatMap((e) => e.rowIds);
  assert.equal(started.sort(), [...rowIds].sort(), 'each row started once');
  const finished = await runEvents(ctx.t, runId, 'RunRowFinished');
  assert.is(finished.length, 70);
  assert.ok(finished.every((f) => f.outcome === 'succeeded'));

  assert.equal(await worker(ctx.t).handle(work, new AbortController().signal, LEASE), { status: 'done' });
  assert.ok(
    [...ctx.target.counts.values()].every((n) => n === 1),
    'driven again: nothing called again',
  );
  assert.is((await runEvents(ctx.t, runId, 'RunRowFinished')).length, 70, 'no result twice');
  assert.is((await runEvents(ctx.t, runId, 'RunRowsQueued')).length, 2, 'no step queued twice');

  assert.is((await allCounted(ctx, runId)).counts.succeeded, 70);
  const rows = await listAll(ctx.t.app, ctx.key, tableId);
  assert.ok(rows.every((r) => r.cellStatus?.result?.status === 'done' && r.cells.result.key));
});

test('driven again after its driver was cut off: one result per row, repeats only of rows in their calls', async (ctx) => {
  const { runId, work } = await startedRun(ctx, 40);
  const cut = new AbortController();
  ctx.target.hold();
  const first = worker(ctx.t).handle(work, cut.signal, LEASE);
  await eventually('rows in their calls', () => ctx.target.inFlight() === CONCURRENCY);
  // Some rows finish, the next ones start, and then the process is gone mid-call.
  ctx.target.release();
  await eventually('a dozen rows called', () => ctx.target.counts.size >= 12);
  ctx.target.hold();
  await eventually('rows in their calls again', () => ctx.target.inFlight() === CONCURRENCY);
  cut.abort(new Error('killed'));
  await first.then(
    () => assert.unreachable('a driver cut off throws'),
    () => {},
  );
  const calledBefore = new Map(ctx.target.counts);
  ctx.target.release();
  assert.equal(await worker(ctx.t).handle(work, new AbortController().signal, LEASE), { status: 'done' });
  const finished = await runEvents(ctx.t, runId, 'RunRowFinished');
  assert.is(finished.length, 40);
  assert.is(new Set(finished.map((f) => f.rowId)).size, 40, 'one result per row');
  const repeated = [...ctx.target.counts].filter(([, n]) => n > 1).map(([k]) => k);
  assert.ok(repeated.length <= CONCURRENCY, `${repeated.length} repeated`);
  for (const k of repeated) assert.ok(calledBefore.has(k), `${k} repeated, not called before`);
  assert.is((await allCounted(ctx, runId)).counts.succeeded, 40);
});

test('stopped while its rows are in their calls: those finish, nothing starts after, the rest skipped', async (ctx) => {
  const { runId, work } = await startedRun(ctx, 20);
  ctx.target.hold();
  const driving = worker(ctx.t).handle(work, new AbortController().signal, LEASE);
  await eventually('rows in their calls', () => ctx.target.inFlight() === CONCURRENCY);
  const stopped = await call(ctx.t.app, 'POST', `/api/runs/${runId}/stop`, { headers: bearer(ctx.key) });
  assert.is(stopped.status, 200, JSON.stringify(stopped.body));
  // With every slot in a call the driver notices the stop on its own, within a poll.
  const skipped = await eventually('the rows not started skipped', async () => {
    const rows = await runEvents(ctx.t, runId, 'RunRowFinished');
    return rows.length === 20 - CONCURRENCY ? rows : undefined;
  });
  assert.ok(skipped.every((r) => r.outcome === 'skipped' && r.error.code === 'run_stopped'));
  ctx.target.release();
  assert.equal(await driving, { status: 'done' });
  assert.is(ctx.target.counts.size, CONCURRENCY, 'no row started after the stop');
  const run = await allCounted(ctx, runId);
  assert.is(run.status, 'stopping', 'ended by the finish worker, which does not run here');
  assert.equal(run.counts, {
    total: 20,
    queued: 0,
    running: 0,
    succeeded: CONCURRENCY,
    failed: 0,
    skipped: 20 - CONCURRENCY,
  });
});

test('results stored by a driver that died before appending them: appended, not called again', async (ctx) => {
  const { tableId, runId, work, rowIds } = await startedRun(ctx, 6);
  const [done, alsoDone] = [rowIds[1]!, rowIds[4]!];
  // What a driver leaves behind when it dies between storing two results and appending their events.
  const result = (rowId: string) => ({
    finished: {
      runId,
      rowId,
      outcome: 'succeeded',
      error: null,
      meta: { durationMs: 3, attempts: 1, httpStatus: 200 },
      charged: 1,
      at: new Date().toISOString(),
    },
    value: { stored: rowId },
  });
  for (const rowId of [done, alsoDone])
    await ctx.t.db.pool.query('INSERT INTO run_row_results (run_id, row_id, result) VALUES ($1, $2, $3)', [
      runId,
      rowId,
      JSON.stringify(result(rowId)),
    ]);
  assert.equal(await worker(ctx.t).handle(work, new AbortController().signal, LEASE), { status: 'done' });
  assert.is(ctx.target.counts.size, 4, 'the rows with a stored result were not called');
  assert.is(ctx.target.counts.has(`${runId}:${done}`), false);
  const finished = await runEvents(ctx.t, runId, 'RunRowFinished');
  assert.is(finished.length, 6);
  assert.equal(finished.find((f) => f.rowId === done)?.meta, result(done).finished.meta);
  const { rows: left } = await ctx.t.db.pool.query('SELECT row_id FROM run_row_results WHERE run_id = $1', [
    runId,
  ]);
  assert.equal(left, [], 'stored results leave once their events are in the log');
  const cell = await eventually('the stored value in its cell', async () => {
    const res = await call(ctx.t.app, 'GET', `/api/tables/${tableId}/rows/${done}`, {
      headers: bearer(ctx.key),
    });
    return res.body.cellStatus?.result?.status === 'done' ? res.body : undefined;
  });
  assert.equal(cell.cells.result, { stored: done });
});

test('its lease taken by another process: the driver starts nothing more and gives the run up', async (ctx) => {
  const { runId, work } = await startedRun(ctx, 20);
  ctx.target.hold();
  const driving = worker(ctx.t).handle(work, new AbortController().signal, LEASE);
  await eventually('rows in their calls', () => ctx.target.inFlight() === CONCURRENCY);
  // Its lease ran out while the process stalled, and another process claimed the run.
  await ctx.t.db.pool.query(`UPDATE work_items SET lease_owner = 'another' WHERE id = $1`, [work.id]);
  ctx.target.release();
  await driving.then(
    () => assert.unreachable('a driver without its lease ends with an error'),
    (error: Error) => assert.match(error.message, /lease/),
  );
  assert.is(ctx.target.counts.size, CONCURRENCY, 'no row started once the lease was gone');
  // What came back before it saw the lease gone is stored for the run's next driver (not called again).
  const { rows } = await ctx.t.db.pool.query('SELECT row_id FROM run_row_results WHERE run_id = $1', [runId]);
  assert.ok(rows.length >= 1 && rows.length <= CONCURRENCY, `${rows.length} stored`);
});

test('stopped before it was driven: nothing called, every row skipped', async (ctx) => {
  const { runId, work } = await startedRun(ctx, 5);
  const stopped = await call(ctx.t.app, 'POST', `/api/runs/${runId}/stop`, { headers: bearer(ctx.key) });
  assert.is(stopped.status, 200, JSON.stringify(stopped.body));
  assert.equal(await worker(ctx.t).handle(work, new AbortController().signal, LEASE), { status: 'done' });
  assert.is(ctx.target.counts.size, 0, 'the stopped run called nothing');
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

test('a row deleted before its step is read is skipped, not called', async (ctx) => {
  const { tableId, runId, work, rowIds } = await startedRun(ctx, 6);
  const gone = rowIds[3]!;
  const del = await call(ctx.t.app, 'DELETE', `/api/tables/${tableId}/rows/${gone}`, {
    headers: bearer(ctx.key),
  });
  assert.ok(del.status < 300, JSON.stringify(del.body));
  assert.equal(await worker(ctx.t).handle(work, new AbortController().signal, LEASE), { status: 'done' });
  assert.is(ctx.target.counts.has(`${runId}:${gone}`), false);
  const finished = await runEvents(ctx.t, runId, 'RunRowFinished');
  const mine = finished.find((f) => f.rowId === gone);
  assert.is(mine?.error?.code, 'row_not_found');
  assert.is(finished.length, 6);
});

test.run();
