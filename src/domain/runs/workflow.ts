import { reserveCredits, settlementEvents } from '../accounts/credits.ts';
import type { OrganizationEvent } from '../accounts/events.ts';
import type { OrganizationState } from '../accounts/streams.ts';
import { columnNotFound } from '../tables/access.ts';
import type { TableState } from '../tables/table-state.ts';
import type { ColumnRunEvent, RunCreatedData, RunEvent, RunFinishedData, RunTrigger } from './events.ts';
import { type ColumnRunState, claimColumn, eventIdOf, type RunState } from './run-state.ts';

/**
 * A column run as one workflow: what its start, its stop and its end decide, from the states of the
 * streams they touch, as the events each of those streams gets. The shells (commands/runs/start-run.ts,
 * stop-run.ts, processes/runs/finish-worker.ts) load the states and append what is decided; the run's
 * rows are recorded by its driver with the events of row-records.ts. Every event id comes from the run,
 * so a decision appended twice (its process died before it knew) lands once.
 */

/** An event with the id its decision gives it (from the run): appended twice, it lands once. */
export type Identified<E> = E & { id: string };

/** The states a start decides on: the column's claim, the organization's credits, the table, the run. */
export interface StartState {
  claim: ColumnRunState;
  organization: OrganizationState;
  table: TableState;
  run: RunState;
}

/** The rows a start takes, as the read model showed them: listed (at most RUN_LISTED_ROWS) or counted. */
export type StartRows =
  | { total: number; ids: string[]; upTo?: undefined }
  | { total: number; ids?: undefined; upTo: string };

export interface StartRunCommand {
  runId: string;
  organizationId: string;
  tableId: string;
  /** The column as the run will run it (from the read model; the table's stream says it still exists). */
  column: RunCreatedData['column'];
  trigger: RunTrigger;
  rows: StartRows;
  /** Which rows, as the estimate's body has it: kept by a run that selects its rows as it goes. */
  scope: NonNullable<RunCreatedData['selection']>['scope'];
  creditsPerRow: number;
  concurrency: number;
}

/** What a start appends, stream by stream: all of it together, or (EventStoreDB) claim first. */
export interface StartDecision {
  claim: ColumnRunEvent[];
  reservation: OrganizationEvent[];
  created: Identified<RunEvent>[];
  /** The run as it starts (the one started already, when the start is asked for again). */
  run: RunCreatedData;
}

/**
 * A start: the column claimed (one run at a time: 409 `run_in_progress`), the table still holding the
 * column (404 once it is deleted), the credits reserved for the rows the balance covers (402
 * `insufficient_credits` when not one row is covered), and the run's start. A start asked for again
 * (the same run id) decides nothing new; a claim or reservation of this run found already (an earlier
 * try of the same start, on a store without atomic appends) is not made twice.
 */
export function decideStart(command: StartRunCommand, state: StartState, now: Date): StartDecision {
  const { runId, organizationId, tableId, column, rows, creditsPerRow } = command;
  if (state.run.created) return { claim: [], reservation: [], created: [], run: state.run.created };
  if (!state.table.columns.has(column.id)) throw columnNotFound(tableId, column.id);
  // No ids of their own: a run id may be claimed and reserved for again once an earlier try was given
  // up (auto-run retries its start with the same id); a repeat is recognised by the state instead.
  const claim = claimColumn.decide({ tableId, columnId: column.id, runId }, state.claim, now);
  const reserved = state.organization.reservations.get(runId);
  const reservation =
    reserved !== undefined
      ? []
      : reserveCredits.decide(
          { organizationId, runId, rows: rows.total, creditsPerRow },
          state.organization,
          now,
        );
  const amount =
    reserved ?? reservation.reduce((sum, e) => sum + (e.type === 'CreditsReserved' ? e.data.amount : 0), 0);
  const funded = creditsPerRow === 0 ? rows.total : amount / creditsPerRow;
  const run: RunCreatedData = {
    runId,
    organizationId,
    tableId,
    columnId: column.id,
    column,
    trigger: command.trigger,
    ...(rows.ids
      ? { rowIds: rows.ids.slice(0, funded), unfundedRowIds: rows.ids.slice(funded) }
      : {
          rowIds: [],
          unfundedRowIds: [],
          selection: { scope: command.scope, upTo: rows.upTo, total: rows.total, funded },
        }),
    creditsPerRow,
    reserved: amount,
    concurrency: command.concurrency,
    at: now.toISOString(),
  };
  const created: Identified<RunEvent>[] = [
    { id: eventIdOf('created', runId), type: 'RunCreated', data: run },
  ];
  return { claim, reservation, created, run };
}

/** A stop: asked once, on a run that has started and not ended (anything else decides nothing). */
export function decideStop(state: RunState, now: Date): Identified<RunEvent>[] {
  const runId = state.created?.runId;
  if (!runId || state.finished || state.stopRequestedAt) return [];
  return [{ id: eventIdOf('stop', runId), type: 'RunStopRequested', data: { runId, at: now.toISOString() } }];
}

/** What a run's rows came to: counted by its end (its stream or, for a selecting run, the read model). */
export interface RunTally {
  total: number;
  succeeded: number;
  failed: number;
  skipped: number;
  charged: number;
  stopped: boolean;
}

/** How a run ended, from its rows' outcomes. */
export function finalStatus(
  counts: Omit<RunTally, 'charged' | 'stopped'>,
  stopped: boolean,
): { status: RunFinishedData['status']; error: string | null } {
  if (stopped) return { status: 'stopped', error: null };
  if (counts.succeeded === counts.total) return { status: 'succeeded', error: null };
  if (counts.succeeded === 0) {
    return {
      status: 'failed',
      error: `none of the ${counts.total} rows succeeded (${counts.failed} failed)`,
    };
  }
  return { status: 'partially_succeeded', error: null };
}

/**
 * What a run's end appends, stream by stream, in this order: the credits, then the run; the column is
 * released after (releaseColumn, decided on the claim).
 */
export interface FinishDecision {
  settlement: Identified<OrganizationEvent>[];
  finished: Identified<RunEvent>[];
  done: RunFinishedData;
}

/** What a run's end is decided from: its rows' tally, or its end as recorded already. */
export type RunEnding = { tally: RunTally } | { done: RunFinishedData };

/**
 * A run's end, once every row has its result: its rows' charges taken and the rest of the reservation
 * refunded, and its end recorded. An end recorded already (`done`: its worker died
 * after) is decided again from that record, so the steps it may not have reached land with the same ids.
 */
export function decideFinish(run: RunCreatedData, ending: RunEnding, now: Date): FinishDecision {
  const { runId, organizationId, tableId, columnId } = run;
  const end: RunFinishedData =
    'done' in ending
      ? ending.done
      : {
          runId,
          organizationId,
          tableId,
          columnId,
          ...finalStatus(ending.tally, ending.tally.stopped),
          charged: ending.tally.charged,
          refunded: run.reserved - ending.tally.charged,
          at: now.toISOString(),
        };
  return {
    settlement: settlementEvents({ organizationId, runId, charged: end.charged, refunded: end.refunded }),
    finished: [{ id: eventIdOf('finished', runId), type: 'RunFinished', data: end }],
    done: end,
  };
}
