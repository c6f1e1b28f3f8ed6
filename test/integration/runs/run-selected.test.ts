import * as assert from 'uvu/assert';
import { stopRun } from '../../../commands/runs/stop-run.ts';
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
import { insertRows, listAll, rowsPath } from '../../support/rows.ts';

/*
 * A run over more eligible rows than a start lists (RUN_LISTED_ROWS, 10 here; 10,000 in service):
 * its start event lists no row, only how many were eligible and the newest row then, and its driver
 * selects the rows as it goes, a step at a time in row order, by the same eligibility. Worked by hand
 * (test/support/driven-runs.ts), so that rows can change between the start and the driver.
 */
const test = drivenRunSuite('column runs selecting their rows as they go', { RUN_LISTED_ROWS: '10' });

test('the start lists no row; every row runs once, a step at a time in row order; driven again, nothing doubles', async (ctx) => {
  const { tableId, runId, work, rowIds } = await startedRun(ctx, 70);
  const [created] = await runEvents(ctx.t, runId, 'RunCreated');
  assert.equal([created.rowIds, created.unfundedRowIds], [[], []]);
  assert.equal(
    [created.selection.total, created.selection.funded, created.selection.upTo],
    [70, 70, rowIds.at(-1)],
  );
  assert.equal(await drive(ctx.t, work), { status: 'done' });
  assert.is(ctx.target.counts.size, 70);
  assert.ok(
    [...ctx.target.counts.values()].every((n) => n === 1),
    'each row called once',
  );
  assert.ok(ctx.target.maxInFlight() <= CONCURRENCY);
  const queued = await runEvents(ctx.t, runId, 'RunRowsQueued');
  assert.equal(
    queued.map((e) => e.rowIds.length),
    [64, 6],
  );
  assert.equal(
    queued.flatMap((e) => e.rowIds),
    rowIds,
    'in row order',
  );
  assert.equal(await runEvents(ctx.t, runId, 'RunRowsLeft'), []);
  assert.equal(await drive(ctx.t, work), { status: 'done' });
  assert.ok(
    [...ctx.target.counts.values()].every((n) => n === 1),
    'driven again: nothing called again',
  );
  assert.is((await runEvents(ctx.t, runId, 'RunRowsQueued')).length, 2, 'no step queued twice');
  const run = await allCounted(ctx, runId);
  assert.equal(run.counts, { total: 70, queued: 0, running: 0, succeeded: 70, failed: 0, skipped: 0 });
  const rows = await call(ctx.t.app, 'GET', `/api/runs/${runId}/rows?limit=1000`, {
    headers: bearer(ctx.key),
  });
  assert.is(rows.body.data.length, 70, "the run's rows, as they were queued");
  assert.is((await allCellsDone(ctx, tableId)).length, 70);
});

test("rows deleted after the start are left, counted skipped; rows inserted after it are not the run's", async (ctx) => {
  const { tableId, runId, work, rowIds } = await startedRun(ctx, 30);
  const deleted = await call(ctx.t.app, 'POST', `${rowsPath(tableId)}/delete`, {
    headers: bearer(ctx.key),
    body: { rowIds: rowIds.slice(10, 15) },
  });
  assert.is(deleted.body.deleted, 5);
  const later = await insertRows(ctx.t.app, ctx.key, tableId, [{ n: 'later' }, { n: 'later too' }]);
  assert.equal(await drive(ctx.t, work), { status: 'done' });
  assert.is(ctx.target.counts.size, 25, 'the rows there at the start and still there');
  const left = await runEvents(ctx.t, runId, 'RunRowsLeft');
  assert.equal(
    left.map((e) => [e.count, e.reason.code]),
    [[5, 'no_longer_eligible']],
  );
  const run = await allCounted(ctx, runId);
  assert.equal(run.counts, { total: 30, queued: 0, running: 0, succeeded: 25, failed: 0, skipped: 5 });
  const cells = await listAll(ctx.t.app, ctx.key, tableId);
  const laterIds = new Set(later.map((r) => r.id));
  assert.ok(cells.filter((r) => laterIds.has(r.id)).every((r) => r.cellStatus?.result?.status === 'empty'));
});

test('stopped before its driver: nothing is selected, every row counted skipped at once', async (ctx) => {
  const { runId, work } = await startedRun(ctx, 20);
  await stopRun(ctx.t.deps, runId, {});
  assert.equal(await drive(ctx.t, work), { status: 'done' });
  assert.is(ctx.target.counts.size, 0);
  assert.equal(
    (await runEvents(ctx.t, runId, 'RunRowsLeft')).map((e) => [e.count, e.reason.code]),
    [[20, 'run_stopped']],
  );
  const run = await allCounted(ctx, runId);
  assert.equal(run.counts, { total: 20, queued: 0, running: 0, succeeded: 0, failed: 0, skipped: 20 });
});

test('driven again after its driver was cut off: the steps queued go on where they have no result', async (ctx) => {
  const { runId, work } = await startedRun(ctx, 70);
  const cut = new AbortController();
  ctx.target.hold();
  const first = drive(ctx.t, work, cut.signal);
  await eventually('rows in their calls', () => ctx.target.inFlight() === CONCURRENCY);
  ctx.target.release();
  await eventually('a dozen rows called', () => ctx.target.counts.size >= 12);
  cut.abort();
  await first.catch(() => {});
  assert.equal(await drive(ctx.t, work), { status: 'done' });
  assert.is(ctx.target.counts.size, 70, 'every row called');
  assert.is((await runEvents(ctx.t, runId, 'RunRowFinished')).length, 70, 'one result a row');
  const queued = await runEvents(ctx.t, runId, 'RunRowsQueued');
  assert.equal(
    queued.map((e) => e.rowIds.length),
    [64, 6],
    'each step queued once',
  );
  assert.is((await allCounted(ctx, runId)).counts.succeeded, 70);
});

test.run();
