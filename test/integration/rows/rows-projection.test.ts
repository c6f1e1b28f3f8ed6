import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rowsProjection } from '../../../projections/rows/rows.ts';
import type { RowBatchEvent, RowEvent } from '../../../src/domain/rows/events.ts';
import type { RecordedEvent } from '../../../src/event-store/port.ts';
import { PostgresEventStore } from '../../../src/event-store/postgres.ts';
import { applyContext } from '../../../src/projection/apply-context.ts';
import type { RecordedOf, TableNames } from '../../../src/projection/types.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { rowsTables } from '../../support/rows-storage.ts';
import { testRegistry } from '../../support/test-streams.ts';

/*
 * The rows read model copies an insert batch from the log's table in SQL when nothing else in the
 * batch touches its rows, and folds in memory otherwise (or when the log is not in this database, as
 * under EventStoreDB). Both must leave the same rows: each case is applied both ways, the memory way
 * by events whose ids the log's table does not hold.
 */
const test = suite<{ db: TestDatabase; store: PostgresEventStore }>('rows read model: inserts copied in SQL');

test.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.store = new PostgresEventStore(ctx.db.pool, testRegistry);
  source = ctx.store;
  for (const name of ['rows_sql', 'rows_memory'])
    tables.set(name, await rowsTables(ctx.db.pool, name, { t1: COLUMNS }));
});
test.after.each(async (ctx) => {
  await ctx.store.close();
  await ctx.db.drop();
});

type Event = RecordedOf<RowEvent | RowBatchEvent>;
const tables = new Map<string, TableNames>();
const AT = '2026-01-02T03:04:05.678Z';
const LATER = '2026-01-03T00:00:00.000Z';
/** The columns of table t1 the cases write. */
const COLUMNS = ['col_a', 'col_b', 'col_j', 'col_n', 'col_other', 'col_sum'];

const insert = (batchId: string, rows: { rowId: string; cells: object; statuses?: object }[]) => ({
  type: 'RowsInserted',
  data: { tableId: 't1', batchId, rows: rows.map((r) => ({ statuses: {}, ...r })), at: AT },
});
const change = (rowId: string, cells: object) => ({
  type: 'RowCellsChanged',
  data: { tableId: 't1', rowId, cells, statuses: { col_sum: 'done' }, at: LATER },
});

/** Appends the events (each to its own stream) and reads them back as the log hands them over. */
async function logged(store: PostgresEventStore, events: { type: string; data: object }[]): Promise<Event[]> {
  for (const [i, event] of events.entries()) {
    const stream = event.type === 'RowsInserted' ? `rowbatch-t1.${i}` : `row-t1.${randomUUID()}`;
    await store.append(stream, [event]);
  }
  return (await store.readAll()) as Event[];
}

/** The same events under ids the log's table does not hold: the read model must fold them in memory. */
const unlogged = (events: readonly Event[]): Event[] =>
  events.map((e) => ({ ...e, id: randomUUID() }) as RecordedEvent as Event);

/** The test's store: the events' SQL source of `rows_sql` (rows_memory's batches have none). */
let source: PostgresEventStore | undefined;

async function apply(db: TestDatabase, table: string, events: readonly Event[]) {
  const tx = await db.pool.connect();
  try {
    await tx.query('BEGIN');
    await rowsProjection.apply(
      events,
      applyContext(tx, tables.get(table), table === 'rows_sql' ? source : undefined),
    );
    await tx.query('COMMIT');
  } finally {
    tx.release();
  }
}

const rowsOf = async (db: TestDatabase, table: string) =>
  (
    await db.pool.query(
      `SELECT table_id, id, cells, cell_status, created_at, updated_at, revision FROM ${table} ORDER BY id`,
    )
  ).rows;

/** Applies the batches both ways; the tables must agree, and are returned for what the case checks. */
async function bothWays(db: TestDatabase, batches: readonly Event[][]) {
  for (const batch of batches) {
    await apply(db, 'rows_sql', batch);
    await apply(db, 'rows_memory', unlogged(batch));
  }
  const [sql, memory] = [await rowsOf(db, 'rows_sql'), await rowsOf(db, 'rows_memory')];
  assert.equal(sql, memory);
  return sql;
}

test('an insert batch: every row as inserted, statuses stamped with its time', async ({ db, store }) => {
  const events = await logged(store, [
    insert('b1', [
      { rowId: 'r1', cells: { col_a: 'x', col_n: 1.5, col_j: { deep: [1, null, 'y'] } } },
      { rowId: 'r2', cells: {}, statuses: { col_sum: 'done', col_other: 'empty' } },
    ]),
  ]);
  const rows = await bothWays(db, [events]);
  assert.equal(
    rows.map((r) => [r.id, r.cells, r.cell_status, r.created_at.toISOString(), r.revision]),
    [
      ['r1', { col_a: 'x', col_n: 1.5, col_j: { deep: [1, null, 'y'] } }, {}, AT, '0'],
      [
        'r2',
        {},
        { col_sum: { status: 'done', updatedAt: AT }, col_other: { status: 'empty', updatedAt: AT } },
        AT,
        '0',
      ],
    ],
  );
});

test('an insert applied again leaves a row changed since as it is', async ({ db, store }) => {
  const [inserted, changed] = await logged(store, [
    insert('b1', [{ rowId: 'r1', cells: { col_a: 'x' } }]),
    change('r1', { col_a: 'y' }),
  ]);
  const rows = await bothWays(db, [[inserted!], [changed!], [inserted!]]);
  assert.equal(
    rows.map((r) => [r.cells, r.revision]),
    [[{ col_a: 'y' }, '1']],
  );
});

test('an insert whose rows other events of the batch touch, next to one copied in SQL', async ({
  db,
  store,
}) => {
  const events = await logged(store, [
    insert('b1', [
      { rowId: 'r1', cells: { col_a: 'x' } },
      { rowId: 'r2', cells: { col_a: 'z' } },
    ]),
    insert('b2', [{ rowId: 'r3', cells: { col_a: 'w' } }]),
    change('r1', { col_a: null, col_b: true }),
  ]);
  const deleted = { ...events[2]!, type: 'RowDeleted', data: { tableId: 't1', rowId: 'r2', at: LATER } };
  const rows = await bothWays(db, [[...events, deleted as Event]]);
  assert.equal(
    rows.map((r) => [r.id, r.cells, r.revision]),
    [
      ['r1', { col_b: true }, '1'],
      ['r3', { col_a: 'w' }, '0'],
    ],
  );
});

test('an insert nothing else touches is read from the log by the server, not sent again', async ({
  db,
  store,
}) => {
  const events = await logged(store, [insert('b1', [{ rowId: 'r1', cells: { col_a: 'x' } }])]);
  // The table's copy changes after the log handed the event over: the read model shows the table's.
  await db.pool.query(`UPDATE events SET data = jsonb_set(data, '{rows,0,cells,col_a}', '"from the log"')`);
  await apply(db, 'rows_sql', events);
  assert.equal(
    (await rowsOf(db, 'rows_sql')).map((r) => r.cells),
    [{ col_a: 'from the log' }],
  );
});

test.run();
