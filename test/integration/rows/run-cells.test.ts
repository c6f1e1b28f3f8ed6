import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rowsProjection } from '../../../projections/rows/rows.ts';
import { PostgresEventStore } from '../../../src/event-store/postgres.ts';
import { applyContext } from '../../../src/projection/apply-context.ts';
import type { TableNames } from '../../../src/projection/types.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { rowsTables } from '../../support/rows-storage.ts';
import { testRegistry } from '../../support/test-streams.ts';

/*
 * The rows read model applies a run's RunRowsQueued and RunRowsStarted (many rows an event) to the
 * cells of the run's column, in log order with the rows' own events of the same batch: a cell is
 * queued once a run, starts only from its run's `queued`, and a result stays (a start repeated after
 * a crash, or applied in the same batch as the result, changes nothing). The row's version (its ETag)
 * does not move: only its own stream's events move it.
 */
const test = suite<{ db: TestDatabase; store: PostgresEventStore }>('rows read model: cells of a run');

test.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.store = new PostgresEventStore(ctx.db.pool, testRegistry);
  tables = await rowsTables(ctx.db.pool, 'rows_t', { t1: [COL] });
});
test.after.each(async (ctx) => {
  await ctx.store.close();
  await ctx.db.drop();
});

let tables: TableNames;
const COL = 'col_r';
const at = (n: number) => `2026-01-02T03:04:0${n}.000Z`;
let position = 0n;
/** An event as the log hands it over (ids the log's table does not hold: folded in memory). */
const recorded = (type: string, data: object, revision = 0n) => ({
  id: randomUUID(),
  type,
  data,
  revision,
  stream: 's',
  position: { commit: ++position, prepare: position },
  metadata: {},
  recordedAt: new Date(),
});
const runRows = (type: 'RunRowsQueued' | 'RunRowsStarted', runId: string, rowIds: string[], n: number) =>
  recorded(type, { runId, tableId: 't1', columnId: COL, rowIds, at: at(n) });
const result = (rowId: string, runId: string, revision: bigint, n: number) =>
  recorded(
    'RowCellsChanged',
    {
      tableId: 't1',
      rowId,
      cells: { [COL]: `value of ${runId}` },
      statuses: { [COL]: { status: 'done', runId } },
      at: at(n),
    },
    revision,
  );

async function apply(db: TestDatabase, events: object[]) {
  const tx = await db.pool.connect();
  try {
    await tx.query('BEGIN');
    const context = applyContext(tx, tables);
    // biome-ignore lint/suspicious/noExplicitAny: hand-made events as the log would hand them over
    await rowsProjection.apply(events as any, context);
    await tx.query('COMMIT');
  } finally {
    tx.release();
  }
}

/** Each row's status of the column (with its run), its value and its version. */
const cells = async (db: TestDatabase) =>
  Object.fromEntries(
    (await db.pool.query(`SELECT id, cells, cell_status, revision FROM rows_t ORDER BY id`)).rows.map((r) => [
      r.id,
      [r.cell_status[COL]?.status, r.cell_status[COL]?.runId, r.cells[COL], r.revision],
    ]),
  );

test('inserted and queued in one batch (not copied in SQL), started, then each result', async ({
  db,
  store,
}) => {
  await store.append('rowbatch-t1.b1', [
    {
      type: 'RowsInserted',
      data: {
        tableId: 't1',
        batchId: 'b1',
        rows: ['r1', 'r2', 'r3'].map((rowId) => ({ rowId, cells: {}, statuses: {} })),
        at: at(0),
      },
    },
  ]);
  const [insert] = await store.readAll();
  await apply(db, [insert!, runRows('RunRowsQueued', 'run1', ['r1', 'r2', 'r3', 'gone'], 1)]);
  assert.equal(await cells(db), {
    r1: ['queued', 'run1', undefined, '0'],
    r2: ['queued', 'run1', undefined, '0'],
    r3: ['queued', 'run1', undefined, '0'],
  });
  await apply(db, [runRows('RunRowsStarted', 'run1', ['r1', 'r2'], 2)]);
  assert.equal((await db.pool.query(`SELECT cell_status, updated_at FROM rows_t WHERE id = 'r1'`)).rows[0], {
    cell_status: { [COL]: { status: 'running', runId: 'run1', updatedAt: at(2) } },
    updated_at: new Date(at(2)),
  });
  // r1's result, then its start again (worked again after a crash); r3 starts and ends in one batch.
  await apply(db, [
    result('r1', 'run1', 0n, 3),
    runRows('RunRowsStarted', 'run1', ['r1', 'r3'], 4),
    result('r3', 'run1', 0n, 5),
  ]);
  assert.equal(await cells(db), {
    r1: ['done', 'run1', 'value of run1', '1'],
    r2: ['running', 'run1', undefined, '0'],
    r3: ['done', 'run1', 'value of run1', '1'],
  });
});

test("a next run's queue after a result in the same batch: queued for the next run", async ({ db }) => {
  await apply(db, [
    recorded('RowsInserted', {
      tableId: 't1',
      batchId: 'b1',
      rows: [{ rowId: 'r1', cells: {}, statuses: {} }],
      at: at(0),
    }),
  ]);
  await apply(db, [
    runRows('RunRowsQueued', 'run1', ['r1'], 1),
    runRows('RunRowsStarted', 'run1', ['r1'], 2),
  ]);
  await apply(db, [
    result('r1', 'run1', 0n, 3),
    runRows('RunRowsQueued', 'run2', ['r1'], 4),
    // run1's start again (the row worked again after a crash) changes nothing of run2's cell.
    runRows('RunRowsStarted', 'run1', ['r1'], 5),
  ]);
  assert.equal(await cells(db), { r1: ['queued', 'run2', 'value of run1', '1'] });
});

test.run();
