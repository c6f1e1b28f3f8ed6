import { defineStream } from '../../stream.ts';
import type { CellStatusValue, ChangedStatus, InsertedRow, RowEvent } from './events.ts';
import { rowBatchEvents, rowEvents } from './events.ts';

export interface CellStatus {
  status: CellStatusValue;
  error?: string;
  runId?: string;
  updatedAt: string;
}

/** A row as its batch and its own stream tell it; cells and statuses keyed by column id. */
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

export const statusesAt = (
  statuses: Readonly<Record<string, CellStatusValue | ChangedStatus>>,
  at: string,
): Record<string, CellStatus> =>
  Object.fromEntries(
    Object.entries(statuses).map(([id, status]) => [
      id,
      typeof status === 'string' ? { status, updatedAt: at } : { ...status, updatedAt: at },
    ]),
  );

/** A row as its insert batch left it: what its own stream's events fold onto. */
export const insertedRow = (tableId: string, row: InsertedRow, at: string): RowState => ({
  exists: true,
  deleted: false,
  tableId,
  id: row.rowId,
  cells: row.cells,
  statuses: statusesAt(row.statuses, at),
  createdAt: at,
  updatedAt: at,
});

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

/**
 * `rowbatch-<tableId>.<batchId>`: one insert of up to 1,000 rows, one event. An import appends a
 * thousand rows as one event rather than a thousand streams (measured: the append is three times
 * cheaper, and the read model reads one event back); a row's id names its batch.
 */
export const rowBatchStream = defineStream({
  category: 'rowbatch',
  id: (tableId: string, batchId: string) => `${tableId}.${batchId}`,
  events: rowBatchEvents,
  initialState: () => ({ exists: false }),
  evolve: () => ({ exists: true }),
  history: { description: 'an insert batch of rows (cells by column id)' },
});

/**
 * `row-<tableId>.<rowId>`: what happened to one row after its insert (its cells folded onto the row as
 * its batch inserted it). A stream per row, so PATCHes of different rows never meet, and those of one
 * row merge cell by cell.
 */
export const rowStream = defineStream({
  category: 'row',
  id: (tableId: string, rowId: string) => `${tableId}.${rowId}`,
  events: rowEvents,
  initialState: initialRowState,
  evolve: evolveRow,
  history: { description: 'the changes of a row after its insert: cells by column id, statuses, deletion' },
});

/** The version a row's ETag shows: 0 as inserted, then one more for each change in its own stream. */
export const rowVersion = (revision: bigint | undefined) => (revision === undefined ? 0n : revision + 1n);
