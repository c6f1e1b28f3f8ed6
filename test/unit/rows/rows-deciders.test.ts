import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deleteRow } from '../../../commands/rows/delete-row.ts';
import { insertRows } from '../../../commands/rows/insert-rows.ts';
import { changeCells } from '../../../commands/rows/patch-row.ts';
import { checkCells, columnsByKey, type RowColumn } from '../../../src/domain/rows/cells.ts';
import type { InsertedRow, RowEvent } from '../../../src/domain/rows/events.ts';
import { batchOf, isRowId, newBatchId, rowIdOf } from '../../../src/domain/rows/ids.ts';
import { insertedRow, type RowState, rowStream } from '../../../src/domain/rows/row-state.ts';
import type { Decider } from '../../../src/stream.ts';
import { given, NOW } from '../../support/decider-spec.ts';

const AT = NOW.toISOString();
const COLUMNS: RowColumn[] = [
  { id: 'col_name', key: 'name', kind: 'input', dataType: 'text' },
  { id: 'col_score', key: 'score', kind: 'input', dataType: 'number' },
  { id: 'col_sum', key: 'summary', kind: 'enrichment', dataType: 'text' },
];
const byId = new Map(COLUMNS.map((c) => [c.id, c]));
const origin = insertedRow(
  't',
  { rowId: 'r', cells: { col_name: 'Ada', col_sum: 'x' }, statuses: { col_sum: 'done' } },
  AT,
);

/** A decider on a row's own stream, given the row as its batch inserted it. */
const onRow = <C>(decider: Decider<RowState, C, RowEvent>, start: RowState = origin) => ({
  ...decider,
  stream: { ...rowStream, initialState: () => start },
});

test('insert: one event for the batch, its rows in the order sent; refused when the batch exists', () => {
  const rows: InsertedRow[] = [
    { rowId: 'r1', cells: { col_name: 'Ada' }, statuses: {} },
    { rowId: 'r2', cells: {}, statuses: { col_sum: 'empty' } },
  ];
  const events = given(insertRows, [])
    .when({ tableId: 't', batchId: 'b', rows })
    .thenEvents([{ type: 'RowsInserted', data: { tableId: 't', batchId: 'b', rows, at: AT } }]);
  given(insertRows, events).when({ tableId: 't', batchId: 'b', rows }).refuses('conflict');
});

test('change: only the cells that differ, null clears a present cell, statuses for non-input cells', () => {
  given(onRow(changeCells), [])
    .when({
      tableId: 't',
      rowId: 'r',
      cells: { col_name: 'Ada', col_score: 3, col_sum: null, col_x: null },
      columns: byId,
    })
    .thenEvents([
      {
        type: 'RowCellsChanged',
        data: {
          tableId: 't',
          rowId: 'r',
          cells: { col_score: 3, col_sum: null },
          statuses: { col_sum: 'empty' },
          at: AT,
        },
      },
    ]);
  given(onRow(changeCells), [])
    .when({ tableId: 't', rowId: 'r', cells: { col_name: 'Ada' }, columns: byId })
    .thenEvents([]);
});

test('change: JSON values compare by content, not identity', () => {
  const json = { ...origin, cells: { col_j: { a: [1, { b: 2 }] } } };
  given(onRow(changeCells, json), [])
    .when({ tableId: 't', rowId: 'r', cells: { col_j: { a: [1, { b: 2 }] } }, columns: byId })
    .thenEvents([]);
});

test('change and delete: 404 for a row no batch inserted, or a deleted one', () => {
  const deleted: RowEvent = { type: 'RowDeleted', data: { tableId: 't', rowId: 'r', at: AT } };
  for (const [start, history] of [
    [rowStream.initialState(), []],
    [origin, [deleted]],
  ] as const) {
    given(onRow(changeCells, start), [...history])
      .when({ tableId: 't', rowId: 'r', cells: { col_name: 'x' }, columns: byId })
      .refuses('not_found');
    given(onRow(deleteRow, start), [...history])
      .when({ tableId: 't', rowId: 'r' })
      .refuses('not_found');
  }
  given(onRow(deleteRow), []).when({ tableId: 't', rowId: 'r' }).thenEvents([deleted]);
});

test('cells: checked by data type, named by path; unknown keys refused; null kept or left out', () => {
  const columns = columnsByKey([
    ...COLUMNS,
    { id: 'col_d', key: 'd', kind: 'input', dataType: 'date' },
    { id: 'col_b', key: 'b', kind: 'input', dataType: 'boolean' },
  ]);
  const ok = checkCells(
    columns,
    { name: 'x', score: 1e-3, d: '2024-02-29T23:30:00-01:00', b: false, summary: null },
    'cells',
    'clear',
  );
  assert.equal(ok.errors, []);
  assert.equal(ok.cells, {
    col_name: 'x',
    col_score: 0.001,
    col_d: '2024-03-01T00:30:00.000Z',
    col_b: false,
    col_sum: null,
  });
  assert.equal(checkCells(columns, { summary: null }, 'cells', 'omit').cells, {});
  const bad = checkCells(
    columns,
    { score: '1', d: 'yesterday', b: 0, zz: 1, name: ['x'] },
    'rows[2].cells',
    'omit',
  );
  assert.equal(bad.errors.map((e) => `${e.path}: ${e.message}`).sort(), [
    'rows[2].cells.b: expected true or false',
    'rows[2].cells.d: expected an ISO 8601 date or date-time',
    'rows[2].cells.name: expected a string',
    'rows[2].cells.score: expected a number',
    'rows[2].cells.zz: unknown column',
  ]);
});

test('row ids: of their form, in the order sent within a batch and in creation order across batches', () => {
  const first = newBatchId(1_700_000_000_000);
  const second = newBatchId(1_700_000_000_000);
  const ids = [...Array.from({ length: 1000 }, (_, i) => rowIdOf(first, i)), rowIdOf(second, 0)];
  assert.ok(ids.every(isRowId));
  assert.equal([...ids].sort(), ids);
  assert.equal(batchOf(ids[999]!), { batchId: first, index: 999 });
  assert.ok(rowIdOf(newBatchId(1_700_000_000_001), 0) > ids.at(-1)!);
  assert.not.ok(isRowId('row_abc'));
});

test.run();
