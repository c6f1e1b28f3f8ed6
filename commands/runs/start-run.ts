import { creditsPerRow, runConcurrency } from '../../processes/runs/providers/index.ts';
import { ROW_STORAGE, ROWS } from '../../projections/rows/rows.ts';
import { runsProjection } from '../../projections/runs/runs.ts';
import { eligibility } from '../../queries/rows/eligibility.ts';
import type { RunScope } from '../../queries/rows/run-scope.ts';
import { readableColumns } from '../../queries/rows/table-columns.ts';
import type { Principal } from '../../src/auth/scopes.ts';
import { handleCommand, loadState } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { reserveCredits } from '../../src/domain/accounts/credits.ts';
import { organizationStream } from '../../src/domain/accounts/streams.ts';
import type { RunCreatedData, RunTrigger } from '../../src/domain/runs/events.ts';
import { claimColumn, columnRunStream, eventIdOf, runStream } from '../../src/domain/runs/run-state.ts';
import { columnNotFound } from '../../src/domain/tables/access.ts';
import { tableStream } from '../../src/domain/tables/table-state.ts';
import { AppError } from '../../src/errors.ts';
import type { EventMetadata, Position } from '../../src/event-store/port.ts';
import { readYourWrites } from '../../src/http/commands.ts';
import { randomId } from '../../src/ids.ts';
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
 * Starts a run of a column: the rows the estimate would count, a claim on the column (one run at a
 * time: 409 `run_in_progress`), the credits reserved (402 `insufficient_credits` when not one row is
 * covered), then the run's start event. The reactor turns that into work: the rows' cells are queued
 * and the rows enqueued off the request. Used by the run route and by auto-run.
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
  const listed = await eligibleRows(deps, columns, column, tableId, scope);
  const runId = input.runId ?? randomId('run');
  const lock = columnRunStream.name(tableId, columnId);
  await activeRunOf(deps, tableId, columnId); // releases a claim left by a start that died
  await handleCommand({
    store: deps.store,
    stream: lock,
    decider: claimColumn,
    command: { tableId, columnId, runId },
    metadata,
    now,
  });
  const perRow = creditsPerRow(column.config);
  let reserved = 0;
  try {
    // The column came from the read model, which lags a delete: once claimed, its table's stream says
    // whether it is still there (a delete after this finds the claim and stops the run: stopColumnRuns).
    const { state: table } = await loadState(deps.store, tableStream.name(tableId), tableStream);
    if (!table.columns.has(columnId)) throw columnNotFound(tableId, columnId);
    const reservation = await handleCommand({
      store: deps.store,
      stream: organizationStream.name(organizationId),
      decider: reserveCredits,
      command: { organizationId, runId, rows: listed.total, creditsPerRow: perRow },
      metadata,
      now,
      maxRetries: 200,
    });
    for (const e of reservation.events) if (e.type === 'CreditsReserved') reserved = e.data.amount;
  } catch (error) {
    await deps.store.append(lock, [
      { id: eventIdOf('release', runId), type: 'ColumnRunReleased', data: { tableId, columnId, runId } },
    ]);
    throw error;
  }
  const funded = perRow === 0 ? listed.total : reserved / perRow;
  const run: RunCreatedData = {
    runId,
    organizationId,
    tableId,
    columnId,
    column: { id: column.id, key: column.key, dataType: column.dataType, config: column.config },
    trigger,
    ...(listed.ids
      ? { rowIds: listed.ids.slice(0, funded), unfundedRowIds: listed.ids.slice(funded) }
      : {
          rowIds: [],
          unfundedRowIds: [],
          selection: { scope, upTo: listed.upTo, total: listed.total, funded },
        }),
    creditsPerRow: perRow,
    reserved,
    concurrency: runConcurrency(column.config),
    at: now.toISOString(),
  };
  const appended = await deps.store.append(
    runStream.name(runId),
    [{ id: eventIdOf('created', runId), type: 'RunCreated', data: run, metadata }],
    { expectedRevision: 'no_stream' },
  );
  // Its rows are driven off the request (the run reactor, then processes/runs/run-driver.ts).
  return { run, position: appended.position };
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
): Promise<
  { total: number; ids: string[]; upTo?: undefined } | { total: number; ids?: undefined; upTo: string }
> {
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
