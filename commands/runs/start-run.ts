import { creditsPerRow, runConcurrency } from '../../processes/runs/providers/index.ts';
import { ROW_STORAGE, ROWS } from '../../projections/rows/rows.ts';
import { runsProjection } from '../../projections/runs/runs.ts';
import { eligibility } from '../../queries/rows/eligibility.ts';
import type { RunScope } from '../../queries/rows/run-scope.ts';
import { readableColumns } from '../../queries/rows/table-columns.ts';
import { releaseRunColumn } from '../../services/runs/claims.ts';
import type { Principal } from '../../src/auth/scopes.ts';
import { loadState } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { organizationStream } from '../../src/domain/accounts/streams.ts';
import type { RunCreatedData, RunTrigger } from '../../src/domain/runs/events.ts';
import { columnRunStream, runStream } from '../../src/domain/runs/run-state.ts';
import { decideStart, type StartRows, type StartRunCommand } from '../../src/domain/runs/workflow.ts';
import { columnNotFound } from '../../src/domain/tables/access.ts';
import { tableStream } from '../../src/domain/tables/table-state.ts';
import { AppError } from '../../src/errors.ts';
import type { EventMetadata, Position } from '../../src/event-store/port.ts';
import { readYourWrites } from '../../src/http/commands.ts';
import { randomId } from '../../src/ids.ts';
import { decideAcrossStreams } from '../../src/multi-stream-command.ts';
import { activeRunOf } from './stop-run.ts';

export interface StartRun {
  organizationId: string;
  tableId: string;
  columnId: string;
  /** Which rows: the estimate's body (scope, filter, rowIds, onlyEmpty). */
  scope: RunScope;
  trigger: RunTrigger;
  /** Who asked (a request's metadata; auto-run names its cause). */
  metadata: EventMetadata;
  /**
   * A run id chosen by the caller, so that asking again starts nothing new (auto-run derives it from
   * its work item). Absent: a new id.
   */
  runId?: string;
}

/**
 * Starts a run of a column: the rows the estimate would count (read from the rows read model), then
 * one decision of the run's workflow (decideStart, src/domain/runs/workflow.ts) on the streams it
 * touches: a claim on the column (one run at a time: 409 `run_in_progress`), the credits reserved (402
 * `insufficient_credits` when not one row is covered) and the run's start event, appended as one where
 * the store can (PostgreSQL, memory), else claim first (EventStoreDB). The reactor turns the start into
 * work off the request. Used by the run route and by auto-run.
 */
export async function startRun(
  deps: ServiceDeps,
  input: StartRun,
): Promise<{ run: RunCreatedData; position?: Position }> {
  const { organizationId, tableId, columnId, scope, trigger, metadata } = input;
  if (input.runId) {
    // A start asked for again (auto-run's worker after a crash): the run it made, if it got that far.
    const [created] = await deps.store.readStream(runStream.name(input.runId), { limit: 1 });
    if (created?.type === 'RunCreated')
      return { run: created.data as RunCreatedData, position: created.position };
  }
  const now = deps.clock();
  const principal = { organizationId } as Principal;
  const columns = await readableColumns(deps.pool, principal, tableId);
  const column = columns.find((c) => c.id === columnId);
  if (!column) throw columnNotFound(tableId, columnId);
  if (typeof column.config.provider !== 'string') {
    throw new AppError(
      'column_not_runnable',
      `Column ${column.key} has no provider: there is nothing to run.`,
    );
  }
  const rows = await eligibleRows(deps, columns, column, tableId, scope);
  const runId = input.runId ?? randomId('run');
  // A claim left by a start that died between its appends (a store without atomic appends) is
  // released here once it is stale, and its reservation refunded.
  await activeRunOf(deps, tableId, columnId);
  const command: StartRunCommand = {
    runId,
    organizationId,
    tableId,
    column: { id: column.id, key: column.key, dataType: column.dataType, config: column.config },
    trigger,
    rows,
    scope,
    creditsPerRow: creditsPerRow(column.config),
    concurrency: runConcurrency(column.config),
  };
  const claim = columnRunStream.name(tableId, columnId);
  try {
    const { result, position } = await decideAcrossStreams({
      store: deps.store,
      // In this order: without atomic appends the claim lands first, then the reservation, then the
      // run, each decided again on the states after the one before (the table read after the claim).
      loads: [
        { stream: claim, definition: columnRunStream },
        { stream: organizationStream.name(organizationId), definition: organizationStream },
        { stream: tableStream.name(tableId), definition: tableStream },
        { stream: runStream.name(runId), definition: runStream },
      ] as const,
      decide: ([claimState, organization, table, run]) => {
        const decision = decideStart(command, { claim: claimState, organization, table, run }, now);
        return {
          // The organization's stream is written when a reservation is made, and else neither written
          // nor held; the table's is held at its revision (a condition): a column deleted after it was
          // read makes the start decide again, and refuse.
          parts: [
            decision.claim,
            decision.reservation.length > 0 ? decision.reservation : undefined,
            [],
            decision.created,
          ],
          result: decision.run,
        };
      },
      metadata,
      maxRetries: 200,
    });
    // Its rows are driven off the request (the run reactor, then processes/runs/run-driver.ts).
    return { run: result, position };
  } catch (error) {
    await releaseIfClaimed(deps, { organizationId, tableId, columnId, runId });
    throw error;
  }
}

/**
 * A start refused (or failed) after its claim landed (a store without atomic appends takes the claim
 * first) and before it reserved: the column given back, so that it can run again. Once its reservation
 * has landed, the claim is left to go stale: the next start or delete of the column then refunds the
 * reservation and releases the claim (activeRunOf), as for a start that died there.
 */
async function releaseIfClaimed(
  deps: ServiceDeps,
  claim: { organizationId: string; tableId: string; columnId: string; runId: string },
): Promise<void> {
  if (deps.store.appendAtomically) return;
  const { organizationId, ...release } = claim;
  const organization = organizationStream.name(organizationId);
  const { state } = await loadState(deps.store, organization, organizationStream);
  if (state.reservations.has(claim.runId)) return;
  const { state: run } = await loadState(deps.store, runStream.name(claim.runId), runStream);
  if (!run.created) await releaseRunColumn(deps, release);
}

/**
 * The rows a run of `column` takes: listed (in row order) when there are at most RUN_LISTED_ROWS of
 * them; else counted, with the newest row of the table then (a run that large selects its rows as it
 * goes, processes/runs/run-driver.ts): its count and its newest row come from one statement.
 */
async function eligibleRows(
  deps: ServiceDeps,
  columns: Parameters<typeof eligibility>[0],
  column: Parameters<typeof eligibility>[1],
  tableId: string,
  scope: RunScope,
): Promise<StartRows> {
  const { params, inScope, all, filled, eligible } = eligibility(columns, column, tableId, scope);
  const most = deps.config.RUN_LISTED_ROWS;
  const where = `${inScope} AND NOT ${filled} AND ${eligible}`;
  const { rows } = await deps.pool.query<{ id: string }>(
    `SELECT r.id FROM ${ROWS} r WHERE ${where} ORDER BY r.id LIMIT ${params.add(most + 1)}`,
    params.values,
  );
  if (rows.length <= most) return { total: rows.length, ids: rows.map((r) => r.id) };
  // Every row of the table: the count the read model keeps; else the eligible ones counted.
  const everyRow = all && filled === 'FALSE' && eligible === 'TRUE';
  const { rows: counted } = await deps.pool.query<{ total: string; up_to: string }>(
    everyRow
      ? `SELECT (SELECT row_count FROM ${ROW_STORAGE} WHERE table_id = $1) AS total,
                (SELECT max(id) FROM ${ROWS} WHERE table_id = $1) AS up_to`
      : `SELECT count(*) AS total, max(r.id) AS up_to FROM ${ROWS} r WHERE ${where}`,
    everyRow ? [tableId] : params.values.slice(0, -1),
  );
  return { total: Number(counted[0]!.total), upTo: counted[0]!.up_to };
}

/** Waits (bounded) until the runs read model shows what was appended, so a GET right after shows it. */
export const runVisible = (deps: ServiceDeps, position: Position | undefined) =>
  readYourWrites(deps, position, [runsProjection]);
