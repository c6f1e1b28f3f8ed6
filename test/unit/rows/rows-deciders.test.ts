import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deleteRow } from '../../../commands/rows/delete-row.ts';
import { insertRow } from '../../../commands/rows/insert-rows.ts';
import { changeCells } from '../../../commands/rows/patch-row.ts';
import { checkCells, columnsByKey, type RowColumn } from '../../../src/domain/rows/cells.ts';
import type { RowEvent } from '../../../src/domain/rows/events.ts';
import { isRowId, newRowId } from '../../../src/domain/rows/ids.ts';
import { given, NOW } from '../../support/decider-spec.ts';

const AT = NOW.toISOString();
const COLUMNS: RowColumn[] = [
  { id: 'col_name', key: 'name', kind: 'input', dataType: 'text' },
  { id: 'col_score', key: 'score', kind: 'input', dataType: 'number' },
  { id: 'col_sum', key: 'summary', kind: 'enrichment', dataType: 'text' },
];
const byId = new Map(COLUMNS.map((c) => [c.id, c]));
const inserted: RowEvent = {
  type: 'RowInserted',
  data: {
    tableId: 't',
    rowId: 'r',
    cells: { col_name: 'Ada', col_sum: 'x' },
    statuses: { col_sum: 'done' },
    at: AT,
  },
};

test('insert: a new row with its cells and the statuses given; refused when the row exists', () => {
  const command = {
    tableId: 't',
    rowId: 'r',
    cells: { col_name: 'Ada', col_sum: 'x' },
    statuses: { col_sum: 'done' as const },
  };
  given(insertRow, []).when(command).thenEvents([inserted]);
  given(insertRow, [inserted]).when(command).refuses('conflict');
});

test('change: only the cells that differ, null clears a present cell, statuses for non-input cells', () => {
  given(changeCells, [inserted])
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
  given(changeCells, [inserted])
    .when({ tableId: 't', rowId: 'r', cells: { col_name: 'Ada' }, columns: byId })
    .thenEvents([]);
});

test('change: JSON values compare by content, not identity', () => {
  const json: RowEvent = {
    ...inserted,
    data: { ...inserted.data, cells: { col_j: { a: [1, { b: 2 }] } } },
  } as RowEvent;
  given(changeCells, [json])
    .when({ tableId: 't', rowId: 'r', cells: { col_j: { a: [1, { b: 2 }] } }, columns: byId })
    .thenEvents([]);
});

test('change and delete: 404 for a row that never was or is deleted', () => {
  const deleted: RowEvent = { type: 'RowDeleted', data: { tableId: 't', rowId: 'r', at: AT } };
  for (const history of [[], [inserted, deleted]]) {
    given(changeCells, history)
      .when({ tableId: 't', rowId: 'r', cells: { col_name: 'x' }, columns: byId })
      .refuses('not_found');
    given(deleteRow, history).when({ tableId: 't', rowId: 'r' }).refuses('not_found');
  }
  given(deleteRow, [inserted]).when({ tableId: 't', rowId: 'r' }).thenEvents([deleted]);
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

test('row ids: of their form, and in creation order even within one millisecond', () => {
  const ids = Array.from({ length: 1000 }, () => newRowId(1_700_000_000_000));
  assert.ok(ids.every(isRowId));
  assert.equal([...ids].sort(), ids);
  assert.ok(newRowId(1_700_000_000_001) > ids.at(-1)!);
  assert.not.ok(isRowId('row_abc'));
});

test.run();
