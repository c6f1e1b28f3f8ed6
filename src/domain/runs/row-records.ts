import { cutText } from '../../db/storable-text.ts';
import type { NewEvent, StreamAppend } from '../../event-store/port.ts';
import type { CellStatusValue } from '../rows/events.ts';
import { rowStream } from '../rows/row-state.ts';
import type { RunRowFinishedData, RunRowsData, RunRowsLeftData } from './events.ts';
import { eventIdOf } from './run-state.ts';

/**
 * The events a run's workflow records about its rows, as its driver (processes/runs/run-driver.ts)
 * reports them: the driver decides nothing about the run, it hands each step to these. On the run's own stream: its rows `queued` (a step of rows
 * an event), started (the rows a driver started since its last append, an event), and one result per
 * row; on each row's stream, the result in its cell (the value or the error), which auto-run and
 * webhooks follow.
 * Every id comes from the run and the row (or the driver's append), so a step recorded twice (its
 * driver died before it knew) lands once.
 */

/** Where a row of a run is: the run's own event and the cell the row's stream shows. */
export interface RowStep {
  runId: string;
  tableId: string;
  columnId: string;
  rowId: string;
  at: string;
}

type RunRows = Omit<RowStep, 'rowId'>;

/**
 * A step of the run's rows `queued`, its id from where the step starts in the run's rows (the steps are
 * the same every time the run is driven), so a step queued again, even with a row deleted since, is the
 * same event.
 */
export const queuedEvent = (run: RunRows, first: number, rowIds: readonly string[]): NewEvent => ({
  id: eventIdOf('rows-queued', run.runId, String(first)),
  type: 'RunRowsQueued',
  data: { ...run, rowIds: [...rowIds] } satisfies RunRowsData,
});

/**
 * Rows of the run that started, its id from the run and `key` (the driver and its append: the same
 * append sent again lands once). A row started twice (driven again after a crash) is in two such
 * events: its read models move a row from `queued` to `running` only, so the second does nothing.
 */
export const startedEvent = (run: RunRows, key: readonly string[], rowIds: readonly string[]): NewEvent => ({
  id: eventIdOf('rows-started', run.runId, ...key),
  type: 'RunRowsStarted',
  data: { ...run, rowIds: [...rowIds] } satisfies RunRowsData,
});

/** A row's result on the run. */
export const finishedEvent = (finished: RunRowFinishedData): NewEvent => ({
  id: eventIdOf('row-finished', finished.runId, finished.rowId),
  type: 'RunRowFinished',
  data: finished,
});

const CELL_ERROR_LENGTH = 500;

/** A row's result in its cell: the value on success, the error on failure, on the row's stream. */
export function finishedCell(step: RowStep, finished: RunRowFinishedData, value?: unknown): StreamAppend {
  const { runId, tableId, columnId, rowId, at } = step;
  const status: CellStatusValue =
    finished.outcome === 'succeeded' ? 'done' : finished.outcome === 'failed' ? 'error' : 'skipped';
  const error = finished.error
    ? cutText(`${finished.error.code}: ${finished.error.message}`, CELL_ERROR_LENGTH)
    : undefined;
  return {
    stream: rowStream.name(tableId, rowId),
    events: [
      {
        id: eventIdOf('cell-finished', runId, rowId),
        type: 'RowCellsChanged',
        data: {
          tableId,
          rowId,
          cells: finished.outcome === 'succeeded' ? { [columnId]: value ?? null } : {},
          statuses: { [columnId]: { status, runId, ...(error ? { error } : {}) } },
          at,
        },
      },
    ],
  };
}

/** A row whose value the log refused, in its cell and on the run. */
export const VALUE_NOT_RECORDED = {
  code: 'value_not_recorded',
  message: 'the event log refused the value (a NUL character?)',
};

/** A row skipped before its call (its run stopped, the row deleted): nothing charged. */
export const skippedResult = (
  step: RowStep,
  error: { code: string; message: string },
): RunRowFinishedData => ({
  runId: step.runId,
  rowId: step.rowId,
  outcome: 'skipped',
  error,
  meta: null,
  charged: 0,
  at: step.at,
});

/** Why a row the run's stop kept from starting is skipped. */
export const RUN_STOPPED = { code: 'run_stopped', message: 'the run was stopped before this row started' };

/** Why funded rows of a selecting run were not run: they no longer qualified when it reached them. */
export const NO_LONGER_ELIGIBLE = {
  code: 'no_longer_eligible',
  message: 'the row changed or was deleted after the run started, and no longer qualified for it',
};

/** Funded rows of a selecting run that no step took (no longer eligible, or a stop): one event, counted skipped. */
export const rowsLeftEvent = (
  runId: string,
  count: number,
  reason: { code: string; message: string },
  at: string,
): NewEvent => ({
  id: eventIdOf('rows-left', runId),
  type: 'RunRowsLeft',
  data: { runId, count, reason, at } satisfies RunRowsLeftData,
});
