import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { COLUMNS, columnsProjection } from '../../../projections/columns/columns.ts';
import { TABLES, tablesProjection } from '../../../projections/tables/tables.ts';
import { inTransaction } from '../../../src/db/pool.ts';
import type { RecordedEvent } from '../../../src/event-store/port.ts';
import type { Projection } from '../../../src/projection/types.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';

const test = suite<{ db: TestDatabase }>('tables and columns projections (given events, then rows)');

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  for (const projection of [tablesProjection, columnsProjection]) {
    for (const [logical, ddl] of Object.entries(projection.tables)) {
      for (const statement of ddl(logical)) await ctx.db.pool.query(statement);
    }
  }
});
test.after(async (ctx) => {
  await ctx.db.drop();
});

let position = 0n;
const event = (stream: string, revision: number, type: string, data: object): RecordedEvent => {
  position++;
  return {
    id: `e${position}`,
    stream,
    revision: BigInt(revision),
    position: { commit: position, prepare: position },
    type,
    data,
    metadata: {},
    recordedAt: new Date(),
  };
};

const apply = (db: TestDatabase, projection: Projection, events: RecordedEvent[]) =>
  inTransaction(db.pool, (tx) => projection.apply(events, { tx, table: (t) => t }));

test('tables: created, renamed; a re-applied rename changes nothing', async ({ db }) => {
  const at = '2024-01-01T00:00:00.000Z';
  const renamed = event('table-t1', 2, 'TableRenamed', {
    tableId: 't1',
    name: 'New',
    at: '2024-01-02T00:00:00.000Z',
  });
  await apply(db, tablesProjection, [
    event('table-t1', 0, 'TableCreated', { tableId: 't1', organizationId: 'o1', name: 'Old', at }),
    renamed,
  ]);
  await apply(db, tablesProjection, [
    event('table-t1', 1, 'TableRenamed', { tableId: 't1', name: 'Stale', at: '2024-01-01T12:00:00.000Z' }),
  ]);
  const { rows } = await db.pool.query(
    `SELECT name, organization_id, updated_at FROM ${TABLES} WHERE id = 't1'`,
  );
  assert.equal(rows, [
    { name: 'New', organization_id: 'o1', updated_at: new Date('2024-01-02T00:00:00.000Z') },
  ]);
});

test('columns: created, patched (config merged, nulls removed), moved, removed; re-applies are no-ops', async ({
  db,
}) => {
  const stream = 'column-t1.c1';
  const created = event(stream, 0, 'ColumnCreated', {
    tableId: 't1',
    columnId: 'c1',
    key: 'summary',
    label: 'Summary',
    kind: 'enrichment',
    dataType: 'text',
    origin: 'api',
    status: 'idle',
    autoRun: 'never',
    config: { provider: 'llm', mode: 'basic', lane: 'x' },
    position: 1,
    isImportant: false,
  });
  const patched = event(stream, 1, 'ColumnPatched', {
    tableId: 't1',
    columnId: 'c1',
    changes: { label: 'Short', config: { mode: 'advanced', lane: null, extra: { a: 1 } } },
  });
  const moved = event(stream, 2, 'ColumnMoved', { tableId: 't1', columnId: 'c1', position: 4.5 });
  await apply(db, columnsProjection, [created, patched, moved]);
  // The runner never re-applies, but should a batch come again, the revision guard holds.
  await apply(db, columnsProjection, [created, patched]);
  const row = async () =>
    (await db.pool.query(`SELECT label, config, position, revision FROM ${COLUMNS} WHERE id = 'c1'`)).rows;
  assert.equal(await row(), [
    {
      label: 'Short',
      config: { provider: 'llm', mode: 'advanced', extra: { a: 1 } },
      position: 4.5,
      revision: '2',
    },
  ]);
  await apply(db, columnsProjection, [
    event('table-t1', 3, 'ColumnRemoved', { tableId: 't1', columnId: 'c1', key: 'summary' }),
  ]);
  assert.equal(await row(), []);
});

test('columns: one batch folds a create, patches and a move of one column with patches of a stored one', async ({
  db,
}) => {
  const column = (columnId: string, key: string, position: number) => ({
    tableId: 't2',
    columnId,
    key,
    label: key,
    kind: 'enrichment',
    dataType: 'text',
    origin: 'api',
    status: 'idle',
    autoRun: 'never',
    config: { provider: 'llm', mode: 'basic' },
    position,
    isImportant: false,
  });
  const a = 'column-t2.a';
  const b = 'column-t2.b';
  const gone = 'column-t2.gone';
  await apply(db, columnsProjection, [
    event(b, 0, 'ColumnCreated', column('b', 'beta', 2)),
    event(b, 1, 'ColumnPatched', { tableId: 't2', columnId: 'b', changes: { label: 'Beta 1' } }),
    event(gone, 0, 'ColumnCreated', column('gone', 'gone', 3)),
  ]);
  await apply(db, columnsProjection, [
    event(a, 0, 'ColumnCreated', column('a', 'alpha', 1)),
    event(b, 1, 'ColumnPatched', { tableId: 't2', columnId: 'b', changes: { label: 'stale' } }),
    event(a, 1, 'ColumnPatched', {
      tableId: 't2',
      columnId: 'a',
      changes: { label: 'Alpha', config: { mode: 'advanced', lane: 'fast' } },
    }),
    event(b, 2, 'ColumnPatched', { tableId: 't2', columnId: 'b', changes: { autoRun: 'onInsert' } }),
    event(a, 2, 'ColumnPatched', {
      tableId: 't2',
      columnId: 'a',
      changes: { isImportant: true, config: { lane: null } },
    }),
    event('table-t2', 5, 'ColumnRemoved', { tableId: 't2', columnId: 'gone', key: 'gone' }),
    event(a, 3, 'ColumnMoved', { tableId: 't2', columnId: 'a', position: 0.5 }),
    event(b, 3, 'ColumnPatched', {
      tableId: 't2',
      columnId: 'b',
      changes: { position: 7, config: { provider: null, extra: [1, 2] } },
    }),
    event(gone, 1, 'ColumnPatched', { tableId: 't2', columnId: 'gone', changes: { label: 'after removal' } }),
  ]);
  const { rows } = await db.pool.query(
    `SELECT id, key, label, auto_run, config, position, is_important, revision FROM ${COLUMNS}
     WHERE table_id = 't2' ORDER BY position`,
  );
  assert.equal(rows, [
    {
      id: 'a',
      key: 'alpha',
      label: 'Alpha',
      auto_run: 'never',
      config: { provider: 'llm', mode: 'advanced' },
      position: 0.5,
      is_important: true,
      revision: '3',
    },
    {
      id: 'b',
      key: 'beta',
      label: 'Beta 1',
      auto_run: 'onInsert',
      config: { mode: 'basic', extra: [1, 2] },
      position: 7,
      is_important: false,
      revision: '3',
    },
  ]);
});

test.run();
