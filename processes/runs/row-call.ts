import { COLUMNS, type ColumnRow } from '../../projections/columns/columns.ts';
import { backoffMs } from '../../src/db/backoff.ts';
import { cutText, storableText } from '../../src/db/storable-text.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { rowCharge } from '../../src/domain/accounts/credits.ts';
import { cellValue } from '../../src/domain/runs/cell-value.ts';
import { SKIP_CODES } from '../../src/domain/runs/charge-rules.ts';
import type { RunCreatedData, RunRowFinishedData } from '../../src/domain/runs/events.ts';
import { rowIdempotencyKey } from '../../src/domain/runs/run-state.ts';
import { AppError } from '../../src/errors.ts';
import { inputIssues } from '../../src/http/input-guard.ts';
import { MAX_THROWS } from '../../src/work/worker.ts';
import type { ExecutionOutcome, Executor, RunColumn } from './executor.ts';
import { noChargeCodesOf } from './providers/index.ts';
import { runRowWriter } from './row-writer.ts';

/** Picks the executor of a column's provider (the provider registry, processes/runs/providers/: `executorsFrom`). */
export type ExecutorFor = (config: Readonly<Record<string, unknown>>) => Executor;

/** A row's result as the run records it (RunRowFinished), and the value for its cell. */
export interface RowResult {
  finished: RunRowFinishedData;
  value?: unknown;
}

/** The table's columns as a run's executor sees them (for mappings that name other columns). */
export async function tableColumns(deps: Pick<ServiceDeps, 'pool'>, tableId: string): Promise<RunColumn[]> {
  const { rows } = await deps.pool.query<ColumnRow>(
    `SELECT id, key, data_type, config FROM ${COLUMNS} WHERE table_id = $1`,
    [tableId],
  );
  return rows.map((c) => ({ id: c.id, key: c.key, dataType: c.data_type, config: c.config }));
}

/** How much of a path into an answer its error shows. */
const MAX_PATH = 200;

/**
 * An answer no cell can store fails its row: a NUL character or an unpaired surrogate (the log's jsonb
 * refuses both), nesting deeper than the input guard's 64 levels, or a value not of the column's data
 * type (cell-value.ts; text that spells one is read as one). The provider was called, so the row is
 * charged.
 */
function storable(outcome: ExecutionOutcome, dataType: string): ExecutionOutcome {
  if (!outcome.ok) return outcome;
  const refuse = (why: string) => ({
    ok: false as const,
    error: { code: 'value_not_storable', message: `the answer cannot be stored in a cell: ${why}` },
    meta: outcome.meta,
  });
  const [issue] = inputIssues(outcome.value, ['value']);
  // The path names keys the provider chose: cut short, and storable itself (`resultOf`).
  if (issue) return refuse(`${cutText(issue.path, MAX_PATH)} ${issue.message}`);
  const typed = cellValue(dataType, outcome.value);
  return 'refused' in typed ? refuse(typed.refused) : { ...outcome, value: typed.value };
}

/** A row's result from its executor's outcome: its outcome, error, what the executor reported, its charge. */
function resultOf(run: RunCreatedData, rowId: string, executed: ExecutionOutcome, at: string): RowResult {
  const outcome = storable(executed, run.column.dataType);
  // The log stores events as jsonb: a NUL or a lone surrogate from a provider's text would stall the run.
  const error = outcome.ok
    ? null
    : { code: outcome.error.code, message: storableText(outcome.error.message) };
  return {
    finished: {
      runId: run.runId,
      rowId,
      at,
      outcome: outcome.ok ? 'succeeded' : SKIP_CODES.has(outcome.error.code) ? 'skipped' : 'failed',
      error,
      meta: outcome.meta,
      charged: rowCharge(run.creditsPerRow, error, outcome.meta.cached, noChargeCodesOf(run.column.config)),
    },
    value: outcome.ok ? outcome.value : undefined,
  };
}

/**
 * Calls one row of a run: its cells (keyed by column id, as stored) handed to the column's executor
 * by key, with the run's Idempotency-Key for the row, its secrets resolved at call time. An executor
 * answers every failure of the row or the outside world as an outcome; a throw (a bug, or the database
 * away while a secret is read) is tried again with backoff, and after MAX_THROWS tries the row's result
 * is `internal`, so that the run can end. Aborted (shutdown, the run's lease lost): the throw goes up,
 * nothing is recorded, the row is driven again later with the same key.
 */
export function rowCaller(
  deps: ServiceDeps,
  executorFor: ExecutorFor,
  run: RunCreatedData,
  columns: RunColumn[],
) {
  const keyOf = new Map(columns.map((c) => [c.id, c.key]));
  const execute = executorFor(run.column.config);
  const rows = runRowWriter(deps, run);
  const resolveSecret = (name: string) =>
    deps.parts.vault.resolveSecret(run.organizationId, name).catch((error) => {
      if (error instanceof AppError && error.code === 'not_found') return undefined;
      throw error;
    });
  return async (rowId: string, stored: Record<string, unknown>, signal: AbortSignal): Promise<RowResult> => {
    const cells = Object.fromEntries(
      Object.entries(stored).flatMap(([id, value]) => (keyOf.has(id) ? [[keyOf.get(id)!, value]] : [])),
    );
    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await execute({
          organizationId: run.organizationId,
          tableId: run.tableId,
          runId: run.runId,
          column: run.column,
          row: { id: rowId, cells },
          columns,
          idempotencyKey: rowIdempotencyKey(run.runId, rowId),
          resolveSecret,
          rows,
          signal,
          now: deps.clock,
        });
        if (signal.aborted) throw signal.reason ?? new Error('aborted');
        return resultOf(run, rowId, outcome, deps.clock().toISOString());
      } catch (error) {
        if (signal.aborted) throw error;
        if (attempt < MAX_THROWS) {
          deps.logger.warn({ err: error, runId: run.runId, rowId, attempt }, 'run row threw; trying again');
          await new Promise((r) => setTimeout(r, backoffMs(attempt)));
          continue;
        }
        const message = error instanceof Error ? error.message : String(error);
        const broken = { code: 'internal', message };
        return resultOf(
          run,
          rowId,
          { ok: false, error: broken, meta: { durationMs: 0, attempts: attempt } },
          deps.clock().toISOString(),
        );
      }
    }
  };
}
