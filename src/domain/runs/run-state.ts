import { createHash } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { defineStream } from '../../stream.ts';
import {
  type ColumnRunEvent,
  columnRunEvents,
  type RunCreatedData,
  type RunEvent,
  type RunFinishedData,
  runEvents,
} from './events.ts';

/** The rows a run covers (`total`) and runs (`funded`, the rest skipped unfunded): listed, or counted. */
export const runRowCounts = (run: RunCreatedData): { total: number; funded: number } =>
  run.selection
    ? { total: run.selection.total, funded: run.selection.funded }
    : { total: run.rowIds.length + run.unfundedRowIds.length, funded: run.rowIds.length };

/**
 * A run as its deciders need it: how it started, whether a stop was asked, how it ended. The rows'
 * own events are left out of the fold (a 10,000-row run would fold 20,000 of them on every load): the
 * read model counts them, and the run's end reads them once.
 */
export interface RunState {
  created?: RunCreatedData;
  stopRequestedAt?: string;
  finished?: RunFinishedData;
}

export const runStream = defineStream({
  category: 'run',
  id: (runId: string) => runId,
  events: runEvents,
  initialState: (): RunState => ({}),
  evolve: (state, event: RunEvent): RunState => {
    switch (event.type) {
      case 'RunCreated':
        return { ...state, created: event.data };
      case 'RunStopRequested':
        return state.stopRequestedAt ? state : { ...state, stopRequestedAt: event.data.at };
      case 'RunFinished':
        return { ...state, finished: event.data };
      case 'RunRowStarted':
      case 'RunRowsQueued':
      case 'RunRowsStarted':
      case 'RunRowFinished':
      case 'RunRowsLeft':
        return state;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  history: {
    description: 'a column run: its start (column config, rows, reservation), stop request and end',
    view: (state) => ({
      runId: state.created?.runId,
      rows: state.created?.selection?.total ?? state.created?.rowIds.length,
      stopRequestedAt: state.stopRequestedAt ?? null,
      finished: state.finished ?? null,
    }),
  },
});

/** Which run holds a column, if any. */
export interface ColumnRunState {
  activeRunId?: string;
}

/** `columnrun-<tableId>.<columnId>`: which run holds the column; decided with the revision read. */
export const columnRunStream = defineStream({
  category: 'columnrun',
  id: (tableId: string, columnId: string) => `${tableId}.${columnId}`,
  events: columnRunEvents,
  initialState: (): ColumnRunState => ({}),
  evolve: (state, event: ColumnRunEvent): ColumnRunState => {
    switch (event.type) {
      case 'ColumnRunClaimed':
        return { activeRunId: event.data.runId };
      case 'ColumnRunReleased':
        return state.activeRunId === event.data.runId ? {} : state;
      default: {
        const never: never = event;
        return never;
      }
    }
  },
  history: { description: 'the run that holds a column, if any' },
});

export const runInProgress = (columnId: string, runId: string) =>
  new AppError('run_in_progress', `Column ${columnId} has a run in progress (${runId}); stop it or wait.`, {
    runId,
  });

export const claimColumn = columnRunStream.decider(
  (command: { tableId: string; columnId: string; runId: string }, state) => {
    if (state.activeRunId === command.runId) return [];
    if (state.activeRunId) throw runInProgress(command.columnId, state.activeRunId);
    return [{ type: 'ColumnRunClaimed', data: command }];
  },
);

/**
 * The column given back by a run (its end, a start given up, a stale claim): decided on the claim as it
 * is, so that a run id claimed again after a release (auto-run retrying its start) is released again,
 * which an event id derived from the run alone would have made a repeat of the first release.
 */
export const releaseColumn = columnRunStream.decider(
  (command: { tableId: string; columnId: string; runId: string }, state) =>
    state.activeRunId === command.runId ? [{ type: 'ColumnRunReleased', data: command }] : [],
);

/**
 * An event id made from a name (a UUID of the name's SHA-256, version bits of a v5): the same run and
 * row give the same id, so the store's idempotent append turns a repeat into a no-op.
 */
export function eventIdOf(...parts: string[]): string {
  const hash = createHash('sha256').update(parts.join('\n')).digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The work item kinds of runs: one that drives the run's rows (named for when it only queued them;
 * items of that name are in databases), one to end the run.
 */
export const RUN_QUEUE = 'run-queue';
export const RUN_FINISH = 'run-finish';
export const runQueueItemId = (runId: string) => `${RUN_QUEUE}:${runId}`;
export const runFinishItemId = (runId: string) => `${RUN_FINISH}:${runId}`;

/** What goes out as `Idempotency-Key` with every call a row makes: the same for a repeat of the row. */
export const rowIdempotencyKey = (runId: string, rowId: string) => `${runId}:${rowId}`;
