import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROWS, rowsProjection } from '../../../projections/rows/rows.ts';
import { RUN_ROWS, RUNS, runsProjection } from '../../../projections/runs/runs.ts';
import { rebuildProjection } from '../../../src/projection/rebuild.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { insertRows, listAll } from '../../support/rows.ts';
import { httpColumnTable, runEnded, startRunsApp, startTarget } from '../../support/runs.ts';

/*
 * A run's cells through the rows API: `queued` and `running` come from the run's own events (a step of
 * rows queued, the rows a process started at once), the result from the row's stream. Rows held in
 * flight by the target show `running` while the others wait `queued`; every row ends `done` with its
 * value; and the rows and runs read models rebuilt from the log are what they were.
 */
const test = suite<{ t: TestApp; target: Awaited<ReturnType<typeof startTarget>> }>(
  'column runs: cell statuses from the run',
);

test.before.each(async (ctx) => {
  ctx.target = await startTarget();
  ctx.t = await startRunsApp();
});
test.after.each(async (ctx) => {
  ctx.target.release();
  await ctx.t.close();
  await ctx.target.close();
});

const CONCURRENCY = 2;
const ROW_COUNT = 6;

/** Each row's cell status (and value) of the run's column, by row id. */
const cellsOf = async (t: TestApp, key: string, tableId: string) =>
  new Map(
    (await listAll(t.app, key, tableId)).map((r) => [
      r.id as string,
      {
        status: r.cellStatus.result?.status as string,
        runId: r.cellStatus.result?.runId,
        value: r.cells.result,
      },
    ]),
  );

/** The read models' tables as stored, in a stable order, for comparing before and after a rebuild. */
const snapshot = async (t: TestApp) => ({
  rows: (await t.db.pool.query(`SELECT * FROM ${ROWS} ORDER BY table_id, id`)).rows,
  runs: (await t.db.pool.query(`SELECT * FROM ${RUNS} ORDER BY id`)).rows,
  runRows: (await t.db.pool.query(`SELECT * FROM ${RUN_ROWS} ORDER BY run_id, row_id`)).rows,
});

test('cells go queued -> running -> done as rows start and finish; a rebuild replays the same', async (ctx) => {
  const { t, target } = ctx;
  const key = (await bootstrapAccount(t.app)).apiKey;
  const { tableId, columns } = await httpColumnTable(t.app, key, target.url, CONCURRENCY);
  await insertRows(
    t.app,
    key,
    tableId,
    Array.from({ length: ROW_COUNT }, (_, i) => ({ n: String(i) })),
  );
  target.hold();
  const res = await call(t.app, 'POST', `/api/tables/${tableId}/columns/${columns.result.id}/run`, {
    headers: bearer(key),
    body: { scope: 'all' },
  });
  assert.is(res.status, 202, JSON.stringify(res.body));
  const runId: string = res.body.id;
  // The concurrency's rows are held by the target: they show running, the others queued.
  const held = await eventually('the held rows running, the rest queued', async () => {
    if (target.inFlight() !== CONCURRENCY) return undefined;
    const cells = await cellsOf(t, key, tableId);
    const running = [...cells].filter(([, c]) => c.status === 'running' && c.runId === runId);
    const queued = [...cells].filter(([, c]) => c.status === 'queued' && c.runId === runId);
    return running.length === CONCURRENCY && queued.length === ROW_COUNT - CONCURRENCY ? running : undefined;
  });
  for (const [rowId] of held) assert.ok(target.counts.has(`${runId}:${rowId}`), `${rowId} is in flight`);
  // The runs read model counts them from the same events (it follows the log on its own).
  await eventually('the run counting them running', async () => {
    const got = await call(t.app, 'GET', `/api/runs/${runId}`, { headers: bearer(key) });
    return got.body.counts?.running === CONCURRENCY && got.body.counts.queued === ROW_COUNT - CONCURRENCY;
  });
  target.release();
  const run = await runEnded(t.app, key, runId);
  assert.is(run.status, 'succeeded', JSON.stringify(run));
  const cells = await eventually('every cell done', async () => {
    const all = await cellsOf(t, key, tableId);
    return [...all.values()].every((c) => c.status === 'done') ? all : undefined;
  });
  for (const cell of cells.values()) assert.ok(cell.value?.key?.startsWith(`${runId}:`), 'its value');

  const before = await snapshot(t);
  for (const projection of [rowsProjection, runsProjection]) {
    await rebuildProjection(t.deps.store, t.db.pool, projection, { actor: 'test', batchSize: 7 });
  }
  assert.equal(await snapshot(t), before);
});

test("each row's start is in the log before its result, a fast target's rows too", async ({ t, target }) => {
  const key = (await bootstrapAccount(t.app)).apiKey;
  const { tableId, columns } = await httpColumnTable(t.app, key, target.url, 8);
  await insertRows(
    t.app,
    key,
    tableId,
    Array.from({ length: 30 }, (_, i) => ({ n: String(i) })),
  );
  const res = await call(t.app, 'POST', `/api/tables/${tableId}/columns/${columns.result.id}/run`, {
    headers: bearer(key),
    body: { scope: 'all' },
  });
  const run = await runEnded(t.app, key, res.body.id);
  assert.is(run.counts.succeeded, 30, JSON.stringify(run.counts));
  // A result is submitted without waiting for its start to land: the writer keeps them in order.
  const { rows: events } = await t.db.pool.query<{
    type: string;
    data: { rowId?: string; rowIds?: string[] };
  }>(`SELECT type, data FROM events WHERE stream_name = $1 ORDER BY stream_revision`, [`run-${res.body.id}`]);
  const started = new Set<string>();
  let results = 0;
  for (const { type, data } of events) {
    if (type === 'RunRowsStarted') for (const rowId of data.rowIds!) started.add(rowId);
    if (type === 'RunRowFinished') {
      assert.ok(started.has(data.rowId!), `${data.rowId} finished before it started`);
      results++;
    }
  }
  assert.is(results, 30);
});

test('an answer no cell can store fails its row with value_not_storable, naming where; the others land', async (ctx) => {
  const { t } = ctx;
  // Answers as JSON text: the escapes parse to a NUL character, an unpaired surrogate, a key with a NUL.
  const odd: Record<string, unknown> = {
    '1': { n: '1', note: 'a\u0000b' },
    '2': 'lone \ud800 half',
    '3': { n: '3', ['k\u0000']: true },
    // A path longer than an error shows, cut where a cut must not leave half of a pair behind.
    '4': { [`x${'😀'.repeat(300)}`]: 'a\u0000b' },
  };
  const target = await startTarget({ answer: (n, key) => odd[n] ?? { n, key } });
  try {
    const account = await bootstrapAccount(t.app);
    const key = account.apiKey;
    const { tableId, columns } = await httpColumnTable(t.app, key, target.url, 4);
    await insertRows(
      t.app,
      key,
      tableId,
      ['0', '1', '2', '3', '4'].map((n) => ({ n })),
    );
    const res = await call(t.app, 'POST', `/api/tables/${tableId}/columns/${columns.result.id}/run`, {
      headers: bearer(key),
      body: { scope: 'all' },
    });
    const run = await runEnded(t.app, key, res.body.id);
    assert.is(run.status, 'partially_succeeded', JSON.stringify(run));
    assert.equal([run.counts.succeeded, run.counts.failed], [1, 4]);
    // The provider was called for every row: each is charged.
    assert.equal([run.credits.charged, run.credits.refunded], [run.credits.reserved, 0]);
    const failed = await call(t.app, 'GET', `/api/runs/${res.body.id}/rows?status=failed`, {
      headers: bearer(key),
    });
    const byN = new Map<string, { code: string; message: string }>();
    const rows = await listAll(t.app, key, tableId);
    const nOf = new Map(rows.map((r) => [r.id as string, r.cells.n as string]));
    for (const row of failed.body.data) byN.set(nOf.get(row.rowId)!, row.error);
    assert.equal([...byN.keys()].sort(), ['1', '2', '3', '4']);
    for (const error of byN.values()) assert.is(error.code, 'value_not_storable');
    assert.match(byN.get('1')!.message, /value\.note holds a NUL character/);
    assert.match(byN.get('2')!.message, /value holds an unpaired UTF-16 surrogate/);
    assert.match(byN.get('3')!.message, /value\.k\\u0000 its key holds a NUL character/);
    // The cells say the same, and the good row's value is in its cell.
    const cells = await eventually('every cell final', async () => {
      const all = await cellsOf(t, key, tableId);
      return [...all.values()].every((c) => c.status === 'done' || c.status === 'error') ? all : undefined;
    });
    for (const [rowId, cell] of cells) {
      if (nOf.get(rowId) === '0') assert.equal([cell.status, cell.value?.n], ['done', '0']);
      else assert.equal([cell.status, cell.value], ['error', undefined], `row ${nOf.get(rowId)}`);
    }
  } finally {
    await target.close();
  }
});

test.run();
