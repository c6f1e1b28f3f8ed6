import { z } from 'zod';
import type { EventsOf } from '../../stream.ts';

export const CELL_STATUSES = ['empty', 'queued', 'running', 'done', 'skipped', 'error'] as const;
export type CellStatusValue = (typeof CELL_STATUSES)[number];

const isPlainObject = (value: unknown) => {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * Cells, by column id or key: a JSON object, kept as it is. Every value is checked against its
 * column elsewhere (the API's edge, per data type); z.record would copy each of the 10,000 cells of a
 * batch once more on every parse for nothing.
 */
export const cellsObject = () =>
  z.custom<Record<string, unknown>>(isPlainObject, { message: 'expected an object of cells' });

/**
 * Cells are keyed by column id, not key: a deleted column's cells then belong to no column of the
 * table (every read leaves them out), and a new column that takes a freed key starts empty instead of
 * inheriting the old column's values. Values were checked against the column's data type before the
 * decision.
 */
const cells = cellsObject();
/** The status a write gives the cells of non-input columns it touches (input columns have none). */
const statuses = z.record(z.string(), z.enum(CELL_STATUSES));

/**
 * A change's statuses may say more: which run wrote the cell, and the row's error when it failed
 * (`{ status, error?, runId? }`, as the rows API shows a cell status). Plain values are the older form.
 */
const changedStatuses = z.record(
  z.string(),
  z.union([
    z.enum(CELL_STATUSES),
    z.object({ status: z.enum(CELL_STATUSES), error: z.string().optional(), runId: z.string().optional() }),
  ]),
);
export type ChangedStatus = z.infer<typeof changedStatuses>[string];

/** An insert batch, in its own stream: every row it created, in the order sent. */
const RowsInserted = z.object({
  tableId: z.string(),
  batchId: z.string(),
  rows: z.array(z.object({ rowId: z.string(), cells, statuses })),
  at: z.string(),
});

/** Only the cells that changed: a value, or null for a cell cleared. */
const RowCellsChanged = z.object({
  tableId: z.string(),
  rowId: z.string(),
  cells,
  statuses: changedStatuses,
  at: z.string(),
});

const RowDeleted = z.object({ tableId: z.string(), rowId: z.string(), at: z.string() });

export const rowBatchEvents = { RowsInserted };
export const rowEvents = { RowCellsChanged, RowDeleted };

export type RowBatchEvent = EventsOf<typeof rowBatchEvents>;
export type RowEvent = EventsOf<typeof rowEvents>;
export type InsertedRow = z.infer<typeof RowsInserted>['rows'][number];
