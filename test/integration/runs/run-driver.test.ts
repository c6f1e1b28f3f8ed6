import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import {
  allCellsDone,
  allCounted,
  CONCURRENCY,
  drive,
  drivenRunSuite,
  runEvents,
  startedRun,
} from '../../support/driven-runs.ts';
import { eventually } from '../../support/eventually.ts';

/* A run's rows driven by its worker's driver: see test/support/driven-runs.ts. */
const test = drivenRunSuite("column runs: a run's rows driven by the one process holding the run");

test('every row called once, at most the concurrency at once; queued a step at a time; driven again, nothing doubles', async (ctx) => {
  const { tableId, runId, work, rowIds } = await startedRun(ctx, 70);
  assert.equal(await drive(ctx.t, work), { status: 'done' });
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

  assert.equal(await drive(ctx.t, work), { status: 'done' });
  assert.ok(
    [...ctx.target.counts.values()].every((n) => n === 1),
    'driven again: nothing called again',
  );
  assert.is((await runEvents(ctx.t, runId, 'RunRowFinished')).length, 70, 'no result twice');
  assert.is((await runEvents(ctx.t, runId, 'RunRowsQueued')).length, 2, 'no step queued twice');

  assert.is((await allCounted(ctx, runId)).counts.succeeded, 70);
  const rows = await allCellsDone(ctx, tableId);
  assert.is(rows.length, 70);
  assert.ok(rows.every((r) => r.cells.result.key));
});

test('driven again after its driver was cut off: one result per row, repeats only of rows in their calls', async (ctx) => {
  const { runId, work } = await startedRun(ctx, 40);
  const cut = new AbortController();
  ctx.target.hold();
  const first = drive(ctx.t, work, cut.signal);
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
  assert.equal(await drive(ctx.t, work), { status: 'done' });
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
  const driving = drive(ctx.t, work);
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

test('stopped before it was driven: nothing called, every row skipped', async (ctx) => {
  const { runId, work } = await startedRun(ctx, 5);
  const stopped = await call(ctx.t.app, 'POST', `/api/runs/${runId}/stop`, { headers: bearer(ctx.key) });
  assert.is(stopped.status, 200, JSON.stringify(stopped.body));
  assert.equal(await drive(ctx.t, work), { status: 'done' });
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
  assert.equal(await drive(ctx.t, work), { status: 'done' });
  assert.is(ctx.target.counts.has(`${runId}:${gone}`), false);
  const finished = await runEvents(ctx.t, runId, 'RunRowFinished');
  const mine = finished.find((f) => f.rowId === gone);
  assert.is(mine?.error?.code, 'row_not_found');
  assert.is(finished.length, 6);
});

test.run();
