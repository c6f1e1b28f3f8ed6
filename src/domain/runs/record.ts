import type { EventStore, StreamAppend } from '../../event-store/port.ts';
import { GroupCommit } from '../../group-commit.ts';
import type { CellStatusValue } from '../rows/events.ts';
import { rowStream } from '../rows/row-state.ts';
import type { RunRowFinishedData } from './events.ts';
import { eventIdOf, runStream } from './run-state.ts';

/** Where a row of a run is: the run's own event and the cell the row's stream shows. */
export interface RowStep {
  runId: string;
  tableId: string;
  columnId: string;
  rowId: string;
  at: string;
}

/** The cell as the rows API shows it: its status with the run, and the row's error. */
function cellChange(
  step: RowStep,
  status: CellStatusValue,
  name: string,
  extra: { value?: unknown; error?: string } = {},
) {
  const { runId, tableId, columnId, rowId, at } = step;
  return {
    stream: rowStream.name(tableId, rowId),
    events: [
      {
        id: eventIdOf(name, runId, rowId),
        type: 'RowCellsChanged',
        data: {
          tableId,
          rowId,
          cells: extra.value === undefined ? {} : { [columnId]: extra.value },
          statuses: { [columnId]: { status, runId, ...(extra.error ? { error: extra.error } : {}) } },
          at,
        },
      },
    ],
  } satisfies StreamAppend;
}

export const queuedAppend = (step: RowStep): StreamAppend[] => [cellChange(step, 'queued', 'cell-queued')];

export const startedAppends = (step: RowStep): StreamAppend[] => [
  {
    stream: runStream.name(step.runId),
    events: [
      {
        id: eventIdOf('row-started', step.runId, step.rowId),
        type: 'RunRowStarted',
        data: { runId: step.runId, rowId: step.rowId, at: step.at },
      },
    ],
  },
  cellChange(step, 'running', 'cell-running'),
];

const CELL_ERROR_LENGTH = 500;

/** The row's result on the run and in its cell: the value on success, the error on failure. */
export function finishedAppends(
  step: RowStep,
  finished: RunRowFinishedData,
  value?: unknown,
): StreamAppend[] {
  const status: CellStatusValue =
    finished.outcome === 'succeeded' ? 'done' : finished.outcome === 'failed' ? 'error' : 'skipped';
  const error = finished.error
    ? `${finished.error.code}: ${finished.error.message}`.slice(0, CELL_ERROR_LENGTH)
    : undefined;
  return [
    {
      stream: runStream.name(step.runId),
      events: [
        { id: eventIdOf('row-finished', step.runId, step.rowId), type: 'RunRowFinished', data: finished },
      ],
    },
    cellChange(step, status, 'cell-finished', {
      value: finished.outcome === 'succeeded' ? (value ?? null) : undefined,
      error,
    }),
  ];
}

/** Why a row the run's stop kept from starting is skipped. */
export const RUN_STOPPED = { code: 'run_stopped', message: 'the run was stopped before this row started' };

/** A row the run's stop kept from starting: skipped on the run and in its cell, nothing charged. */
export const stoppedAppends = (step: RowStep): StreamAppend[] =>
  finishedAppends(step, {
    runId: step.runId,
    rowId: step.rowId,
    outcome: 'skipped',
    error: RUN_STOPPED,
    meta: null,
    charged: 0,
    at: step.at,
  });

const writers = new WeakMap<EventStore, GroupCommit<StreamAppend[], Error | undefined>>();

/**
 * Appends one step's events, grouped with whatever other rows record at the same moment into one
 * `appendToStreams` (one round trip and one commit for many rows). Every event has an id from the run
 * and the row, so a step recorded twice (a row worked again after a crash) lands once.
 */
export async function record(store: EventStore, appends: StreamAppend[]): Promise<void> {
  let writer = writers.get(store);
  if (!writer) {
    writer = new GroupCommit(
      async (items: StreamAppend[][]) => {
        const outcomes = await store.appendToStreams(items.flat());
        let next = 0;
        return items.map((parts) => {
          const mine = outcomes.slice(next, next + parts.length);
          next += parts.length;
          return mine.find((o) => !o.ok)?.error;
        });
      },
      { maxBatch: 200, maxInFlight: 1 },
    );
    writers.set(store, writer);
  }
  const failure = await writer.submit(appends);
  if (failure) throw failure;
}

/** Many rows' steps at once (a run's queued cells, a stop's skipped rows), a thousand streams a call. */
export async function recordAll(store: EventStore, appends: StreamAppend[]): Promise<void> {
  for (let i = 0; i < appends.length; i += 1000) {
    const outcomes = await store.appendToStreams(appends.slice(i, i + 1000));
    const failed = outcomes.find((o) => !o.ok);
    if (failed && !failed.ok) throw failed.error;
  }
}
