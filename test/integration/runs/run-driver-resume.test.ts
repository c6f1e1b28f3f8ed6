import * as assert from 'uvu/assert';
import type { RowResult } from '../../../processes/runs/row-call.ts';
import { rowStream } from '../../../src/domain/rows/row-state.ts';
import { finishedCell, finishedEvent } from '../../../src/domain/runs/row-records.ts';
import { runStream } from '../../../src/domain/runs/run-state.ts';
import type { EventStore } from '../../../src/event-store/port.ts';
import { bearer, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import {
  CONCURRENCY,
  type Ctx,
  drive,
  drivenRunSuite,
  runEvents,
  startedRun,
} from '../../support/driven-runs.ts';
import { eventually } from '../../support/eventually.ts';

/*
 * A run taken over by another driver (its process died, or stalled past its lease): what the one
 * before stored is appended and not called again, and a driver whose lease is gone starts nothing.
 */
const test = drivenRunSuite('column runs: a run taken over by the next driver');

/** A row's result as a driver stores it (run_row_results) before its events are in the log. */
const result = (runId: string, rowId: string): RowResult => ({
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

const storeResult = (ctx: Ctx, runId: string, rowId: string) =>
  ctx.t.db.pool.query('INSERT INTO run_row_results (run_id, row_id, result) VALUES ($1, $2, $3)', [
    runId,
    rowId,
    JSON.stringify(result(runId, rowId)),
  ]);

test('results stored by a driver that died before appending them: appended, not called again', async (ctx) => {
  const { tableId, runId, work, rowIds } = await startedRun(ctx, 6);
  const [done, alsoDone] = [rowIds[1]!, rowIds[4]!];
  // What a driver leaves behind when it dies between storing two results and appending their events.
  for (const rowId of [done, alsoDone]) await storeResult(ctx, runId, rowId);
  assert.equal(await drive(ctx.t, work), { status: 'done' });
  assert.is(ctx.target.counts.size, 4, 'the rows with a stored result were not called');
  assert.is(ctx.target.counts.has(`${runId}:${done}`), false);
  const finished = await runEvents(ctx.t, runId, 'RunRowFinished');
  assert.is(finished.length, 6);
  assert.equal(finished.find((f) => f.rowId === done)?.meta, result(runId, done).finished.meta);
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
  const driving = drive(ctx.t, work);
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

/** The app's store, noting the streams of every part appended through it. */
function notingAppends(t: TestApp): { deps: TestApp['deps']; streams: string[] } {
  const streams: string[] = [];
  const store = t.deps.store;
  const noting: EventStore = Object.create(store);
  noting.appendToStreams = (appends) => {
    streams.push(...appends.map((a) => a.stream));
    return store.appendToStreams(appends);
  };
  return { deps: { ...t.deps, store: noting }, streams };
}

test("died between a write's cells and its run part: only the run's part goes, no cell twice", async (ctx) => {
  const { tableId, columns, runId, work, rowIds } = await startedRun(ctx, 5);
  const [cellOnly, both, refusedOnly] = [rowIds[0]!, rowIds[2]!, rowIds[3]!];
  const step = (rowId: string) => ({
    runId,
    tableId,
    columnId: columns.result.id,
    rowId,
    at: new Date().toISOString(),
  });
  for (const rowId of [cellOnly, both, refusedOnly]) await storeResult(ctx, runId, rowId);
  // One write of the driver before landed whole; the next had its cells in when the driver died, one of
  // them its value's refusal (the log had refused the value five times).
  const cell = (rowId: string) =>
    finishedCell(step(rowId), result(runId, rowId).finished, result(runId, rowId).value);
  await ctx.t.deps.store.appendToStreams([cell(both)]);
  await ctx.t.deps.store.appendToStreams([
    { stream: runStream.name(runId), events: [finishedEvent(result(runId, both).finished)] },
  ]);
  const refusal = {
    ...result(runId, refusedOnly).finished,
    outcome: 'failed' as const,
    error: { code: 'value_not_recorded', message: 'the event log refused the value (a NUL character?)' },
  };
  await ctx.t.deps.store.appendToStreams([cell(cellOnly), finishedCell(step(refusedOnly), refusal)]);
  const noted = notingAppends(ctx.t);
  assert.equal(await drive(ctx.t, work, undefined, noted.deps), { status: 'done' });
  assert.is(ctx.target.counts.size, 2, 'the rows with a result were not called');
  for (const rowId of [cellOnly, both, refusedOnly])
    assert.not.ok(noted.streams.includes(rowStream.name(tableId, rowId)), `${rowId}'s cell not sent again`);
  const finished = await runEvents(ctx.t, runId, 'RunRowFinished');
  assert.equal(finished.map((f) => f.rowId).sort(), [...rowIds].sort(), 'one result per row on the run');
  // The run says what the cell says.
  const mine = finished.find((f) => f.rowId === refusedOnly);
  assert.equal([mine?.outcome, mine?.error?.code], ['failed', 'value_not_recorded']);
  assert.is(finished.find((f) => f.rowId === cellOnly)?.outcome, 'succeeded');
  const { rows: left } = await ctx.t.db.pool.query('SELECT row_id FROM run_row_results WHERE run_id = $1', [
    runId,
  ]);
  assert.equal(left, []);
});

test('a stored value the log refuses (stored before answers were checked): the row fails, the run goes on', async (ctx) => {
  const { tableId, runId, work, rowIds } = await startedRun(ctx, 3);
  const [refused, badError] = [rowIds[1]!, rowIds[2]!];
  const holdsNul = { ...result(runId, refused), value: { note: 'a\u0000b' } };
  // And an error's text as a provider said it, half a pair included, which the run's stream refuses.
  const failed = {
    ...result(runId, badError).finished,
    outcome: 'failed',
    error: { code: 'http_error', message: 'x\ud800y' },
  };
  for (const [rowId, stored] of [
    [refused, holdsNul],
    [badError, { finished: failed }],
  ] as const)
    await ctx.t.db.pool.query('INSERT INTO run_row_results (run_id, row_id, result) VALUES ($1, $2, $3)', [
      runId,
      rowId,
      JSON.stringify(stored),
    ]);
  // Its cell is refused five times (backoff 0.1 to 0.8 s), then the row fails: the driver ends.
  assert.equal(await drive(ctx.t, work), { status: 'done' });
  const finished = await runEvents(ctx.t, runId, 'RunRowFinished');
  assert.is(finished.length, 3);
  const mine = finished.find((f) => f.rowId === refused);
  assert.equal([mine?.outcome, mine?.error?.code], ['failed', 'value_not_recorded']);
  assert.equal(finished.find((f) => f.rowId === badError)?.error, {
    code: 'http_error',
    message: 'x\ufffdy',
  });
  const row = await eventually('the error in its cell', async () => {
    const res = await call(ctx.t.app, 'GET', `/api/tables/${tableId}/rows/${refused}`, {
      headers: bearer(ctx.key),
    });
    return res.body.cellStatus?.result?.status === 'error' ? res.body : undefined;
  });
  assert.match(row.cellStatus.result.error, /^value_not_recorded/);
});

test.run();
