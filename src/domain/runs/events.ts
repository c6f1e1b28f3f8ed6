import { z } from 'zod';
import type { EventsOf } from '../../stream.ts';

/**
 * The events of column runs. A run's own stream (`run-<runId>`) holds its start, its rows queued (a
 * step of rows an event) and started (the rows started at once, an event), one finished event per row
 * (its id derived from the run and the row, so a row worked twice after a crash records once), a stop
 * request and its end. The column's run lock (`columnrun-<table>.<column>`)
 * says which run, if any, holds the column: at most one at a time.
 */
const id = z.string().min(1);

export const RUN_TRIGGERS = ['manual', 'onInsert', 'onSourceUpdate'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

export const FINAL_RUN_STATUSES = ['succeeded', 'partially_succeeded', 'failed', 'stopped'] as const;
export const RUN_STATUSES = ['queued', 'running', 'stopping', ...FINAL_RUN_STATUSES] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const ROW_OUTCOMES = ['succeeded', 'failed', 'skipped'] as const;

const RunColumnSnapshot = z.object({
  id,
  key: z.string(),
  dataType: z.string(),
  config: z.record(z.string(), z.unknown()),
});

const RunCreated = z.object({
  runId: id,
  organizationId: id,
  tableId: id,
  columnId: id,
  /** The column as it was when the run started: every row runs with this config. */
  column: RunColumnSnapshot,
  trigger: z.enum(RUN_TRIGGERS),
  /** The rows to run, in row order. */
  rowIds: z.array(id),
  /** Eligible rows the reservation could not cover: skipped from the start (`insufficient_credits`). */
  unfundedRowIds: z.array(id),
  /**
   * A run over more eligible rows than a start lists (RUN_LISTED_ROWS): `rowIds` and `unfundedRowIds`
   * are empty, and its driver selects the rows as it goes, a step at a time in row order, by the same
   * eligibility (the scope, and the column's condition as `column` holds it) over the rows that existed
   * at the start (ids up to `upTo`): a row that no longer qualifies when the run reaches it is not run.
   * `total` rows were eligible at the start; the first `funded` of those the run reaches are its rows,
   * the others are skipped (`insufficient_credits`) without a result of their own.
   */
  selection: z
    .object({
      scope: z.record(z.string(), z.unknown()),
      upTo: id,
      total: z.number().int().nonnegative(),
      funded: z.number().int().nonnegative(),
    })
    .optional(),
  creditsPerRow: z.number().int().nonnegative(),
  reserved: z.number().int().nonnegative(),
  /** Rows of this run worked at once, across every process. */
  concurrency: z.number().int().positive(),
  at: z.string(),
});

/** One row's start: what runs recorded before RunRowsStarted (kept, so that old logs still read). */
const RunRowStarted = z.object({ runId: id, rowId: id, at: z.string() });

/**
 * Rows of a run whose cells are `queued` (one event a step of the queue worker) or that started (one
 * event for the rows a process starts at the same moment): the rows read model shows each cell's status
 * from them, so a row's own stream holds only its result. Table and column name the cells.
 */
const RunRows = z.object({
  runId: id,
  tableId: id,
  columnId: id,
  rowIds: z.array(id).min(1),
  at: z.string(),
});

const RowError = z.object({ code: z.string(), message: z.string() });
const RowMeta = z.object({
  httpStatus: z.number().int().optional(),
  durationMs: z.number().nonnegative(),
  attempts: z.number().int().nonnegative(),
  cached: z.boolean().optional(),
});

const RunRowFinished = z.object({
  runId: id,
  rowId: id,
  outcome: z.enum(ROW_OUTCOMES),
  error: RowError.nullable(),
  meta: RowMeta.nullable(),
  /** Credits this row cost: the price per row when the provider was called, else 0. */
  charged: z.number().int().nonnegative(),
  at: z.string(),
});

/**
 * Rows of a run selected as it goes (RunCreated.selection) that no step took: funded rows that no longer
 * qualified when the run reached them (changed or deleted since the start), or that a stop kept from
 * being selected. Counted skipped, without a result of their own; once per run.
 */
const RunRowsLeft = z.object({
  runId: id,
  count: z.number().int().positive(),
  reason: z.object({ code: z.string(), message: z.string() }),
  at: z.string(),
});

const RunStopRequested = z.object({ runId: id, at: z.string() });

const RunFinished = z.object({
  runId: id,
  /** Who and what the run was for (webhooks' run.completed needs them; absent in early events). */
  organizationId: id.optional(),
  tableId: id.optional(),
  columnId: id.optional(),
  status: z.enum(FINAL_RUN_STATUSES),
  charged: z.number().int().nonnegative(),
  refunded: z.number().int().nonnegative(),
  error: z.string().nullable(),
  at: z.string(),
});

const ColumnRunClaimed = z.object({ tableId: id, columnId: id, runId: id });
const ColumnRunReleased = z.object({ tableId: id, columnId: id, runId: id });

export const runEvents = {
  RunCreated,
  RunRowStarted,
  RunRowsQueued: RunRows,
  RunRowsStarted: RunRows,
  RunRowFinished,
  RunRowsLeft,
  RunStopRequested,
  RunFinished,
};
export const columnRunEvents = { ColumnRunClaimed, ColumnRunReleased };

export type RunEvent = EventsOf<typeof runEvents>;
export type ColumnRunEvent = EventsOf<typeof columnRunEvents>;
export type RunCreatedData = z.infer<typeof RunCreated>;
export type RunRowFinishedData = z.infer<typeof RunRowFinished>;
export type RunRowsData = z.infer<typeof RunRows>;
export type RunRowsLeftData = z.infer<typeof RunRowsLeft>;
export type RunFinishedData = z.infer<typeof RunFinished>;
