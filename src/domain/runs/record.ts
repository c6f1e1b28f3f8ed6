import type { EventStore, StreamAppend, StreamAppendOutcome } from '../../event-store/port.ts';
import { groupBy } from '../../group-by.ts';
import { GroupCommit } from '../../group-commit.ts';
import type { CellStatusValue } from '../rows/events.ts';
import { rowStream } from '../rows/row-state.ts';
import type { RunRowFinishedData, RunRowsData } from './events.ts';
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

/**
 * A step of the run's rows `queued`: one event on the run (the rows read model shows the cells from it),
 * its id from the run and where the step starts in the run's rows (the steps are the same every time),
 * so a step queued again (its worker died), even with a row deleted since, lands once.
 */
export const queuedAppend = (
  step: Omit<RowStep, 'rowId'>,
  first: number,
  rowIds: readonly string[],
): StreamAppend[] =>
  rowIds.length === 0
    ? []
    : [
        {
          stream: runStream.name(step.runId),
          events: [
            {
              id: eventIdOf('rows-queued', step.runId, String(first)),
              type: 'RunRowsQueued',
              data: { ...step, rowIds: [...rowIds] } satisfies RunRowsData,
            },
          ],
        },
      ];

/**
 * The rows of one group commit that started, one RunRowsStarted a run (its id from its rows: the same
 * batch written again lands once). A row started twice (worked again after a crash) may be in two
 * such events: its read models move a row from `queued` to `running` only, so the second does nothing.
 */
function startedAppends(steps: readonly RowStep[]): { runId: string; append: StreamAppend }[] {
  return [...groupBy(steps, (step) => step.runId)].map(([runId, mine]) => {
    const { tableId, columnId, at } = mine[0]!;
    const rowIds = [...new Set(mine.map((s) => s.rowId))];
    const data: RunRowsData = { runId, tableId, columnId, rowIds, at };
    return {
      runId,
      append: {
        stream: runStream.name(runId),
        events: [{ id: eventIdOf('rows-started', runId, ...rowIds), type: 'RunRowsStarted', data }],
      },
    };
  });
}

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

/**
 * The least time between two appends of rows' starts and results. Every append is a batch for each read
 * model following runs (rows, runs, auto-run, webhooks: a transaction of five statements each), so
 * appends back to back, as fast as round trips allow, cost the database more per row the faster it
 * answered. A row waits this long at most for its result to be recorded.
 */
const RECORD_INTERVAL_MS = 10;

/** What a row records: its start (merged with others' into one event a run) or its result's appends. */
type Recorded = { start: RowStep } | { appends: StreamAppend[] };

const writers = new WeakMap<EventStore, GroupCommit<Recorded, Error | undefined>>();

/** One group commit's items in one `appendToStreams`: the starts merged per run, then the results. */
async function writeBatch(store: EventStore, items: Recorded[]): Promise<(Error | undefined)[]> {
  const starts = startedAppends(items.flatMap((i) => ('start' in i ? [i.start] : [])));
  const appends = items.flatMap((i) => ('appends' in i ? [i.appends] : []));
  const outcomes = await store.appendToStreams([...starts.map((s) => s.append), ...appends.flat()]);
  const failure = (o: StreamAppendOutcome | undefined) => (o && !o.ok ? o.error : undefined);
  const startOutcome = new Map(starts.map((s, i) => [s.runId, failure(outcomes[i])]));
  let next = starts.length;
  return items.map((item) => {
    if ('start' in item) return startOutcome.get(item.start.runId);
    const mine = outcomes.slice(next, next + item.appends.length);
    next += item.appends.length;
    return mine.map(failure).find(Boolean);
  });
}

async function submit(store: EventStore, item: Recorded): Promise<void> {
  let writer = writers.get(store);
  if (!writer) {
    writer = new GroupCommit((items: Recorded[]) => writeBatch(store, items), {
      maxBatch: 200,
      // One batch at a time, in the order of submission: a row's result, submitted before its start
      // has landed (row-worker.ts), can then never land before it.
      maxInFlight: 1,
      minIntervalMs: RECORD_INTERVAL_MS,
    });
    writers.set(store, writer);
  }
  const failure = await writer.submit(item);
  if (failure) throw failure;
}

/**
 * Appends one row's result, grouped with whatever other rows record at the same moment into one
 * `appendToStreams` (one round trip and one commit for many rows). Every event has an id from the run
 * and the row, so a result recorded twice (a row worked again after a crash) lands once.
 */
export const record = (store: EventStore, appends: StreamAppend[]): Promise<void> =>
  submit(store, { appends });

/** A row's start, in the same group commit as other rows' starts and results: one event a run a batch. */
export const recordStart = (store: EventStore, step: RowStep): Promise<void> =>
  submit(store, { start: { ...step } });

/** Many rows' steps at once (a run's queued cells, a stop's skipped rows), a thousand streams a call. */
export async function recordAll(store: EventStore, appends: StreamAppend[]): Promise<void> {
  for (let i = 0; i < appends.length; i += 1000) {
    const outcomes = await store.appendToStreams(appends.slice(i, i + 1000));
    const failed = outcomes.find((o) => !o.ok);
    if (failed && !failed.ok) throw failed.error;
  }
}
