import type { RowColumn } from './cells.ts';
import type { CellStatus } from './row-state.ts';

/** A row as stored (state or read model): cells and statuses by column id. */
export interface StoredRow {
  id: string;
  cells: Readonly<Record<string, unknown>>;
  statuses: Readonly<Record<string, CellStatus>>;
  createdAt: string;
  updatedAt: string;
}

export interface RowView {
  id: string;
  cells: Record<string, unknown>;
  cellStatus: Record<string, CellStatus>;
  createdAt: string;
  updatedAt: string;
}

/**
 * A row as the API shows it, through the table's current columns: cells by key, only those of
 * columns that still exist (a deleted column's cells disappear from every read); a status for every
 * non-input column, `empty` since the row's creation when nothing has written it.
 */
export function rowView(columns: readonly RowColumn[], row: StoredRow): RowView {
  const cells: Record<string, unknown> = {};
  const cellStatus: Record<string, CellStatus> = {};
  for (const column of columns) {
    const value = row.cells[column.id];
    if (value !== undefined && value !== null) cells[column.key] = value;
    if (column.kind !== 'input') {
      cellStatus[column.key] = row.statuses[column.id] ?? { status: 'empty', updatedAt: row.createdAt };
    }
  }
  return { id: row.id, cells, cellStatus, createdAt: row.createdAt, updatedAt: row.updatedAt };
}
