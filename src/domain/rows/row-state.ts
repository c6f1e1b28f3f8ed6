import { defineStream } from '../../stream.ts';
import type { CellStatusValue, RowEvent } from './events.ts';
import { rowEvents } from './events.ts';

export interface CellStatus {
  status: CellStatusValue;
  error?: string;
  runId?: string;
  updatedAt: string;
}

/** A row as its stream tells it; cells and statuses keyed by column id. */
export interface RowState {
  exists: boolean;
  deleted: boolean;
  tableId: string;
  id: string;
  cells: Readonly<Record<string, unknown>>;
  statuses: Readonly<Record<string, CellStatus>>;
  createdAt: string;
  updatedAt: string;
}

export const initialRowState = (): RowState => ({
  exists: false,
  deleted: false,
  tableId: '',
  id: '',
  cells: {},
  statuses: {},
  createdAt: '',
  updatedAt: '',
});

const statusesAt = (statuses: Record<string, CellStatusValue>, at: string) =>
  Object.fromEntries(Object.entries(statuses).map(([id, status]) => [id, { status, updatedAt: at }]));

/** Cells merged by cell: a value replaces, null removes (a cleared cell is absent, as one never written). */
export function mergeCells(
  cells: Readonly<Record<string, unknown>>,
  changes: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...cells };
  for (const [id, value] of Object.entries(changes)) {
    if (value === null) delete merged[id];
    else merged[id] = value;
  }
  return merged;
}

export function evolveRow(state: RowState, event: RowEvent): RowState {
  switch (event.type) {
    case 'RowInserted': {
      const { tableId, rowId, cells, statuses, at } = event.data;
      return {
        exists: true,
        deleted: false,
        tableId,
        id: rowId,
        cells,
        statuses: statusesAt(statuses, at),
        createdAt: at,
        updatedAt: at,
      };
    }
    case 'RowCellsChanged': {
      const { cells, statuses, at } = event.data;
      return {
        ...state,
        cells: mergeCells(state.cells, cells),
        statuses: { ...state.statuses, ...statusesAt(statuses, at) },
        updatedAt: at,
      };
    }
    case 'RowDeleted':
      return { ...state, deleted: true, updatedAt: event.data.at };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** `row-<tableId>.<rowId>`: one row's cells. A stream per row, so PATCHes of different rows never meet. */
export const rowStream = defineStream({
  category: 'row',
  id: (tableId: string, rowId: string) => `${tableId}.${rowId}`,
  events: rowEvents,
  initialState: initialRowState,
  evolve: evolveRow,
  history: { description: 'a row: its cells (by column id) and the status of each non-input cell' },
});
