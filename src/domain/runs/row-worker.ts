import { COLUMNS, type ColumnRow } from '../../../projections/columns/columns.ts';
import { loadState } from '../../command.ts';
import { AppError } from '../../errors.ts';
import type { WorkerFactory } from '../../feature.ts';
import type { AppDeps } from '../../http/app.ts';
import { MAX_THROWS } from '../../work/worker.ts';
import { secretsFor } from '../secrets/vault.ts';
import { rowCharge } from './credits.ts';
import type { RunCreatedData, RunRowFinishedData } from './events.ts';
import type { ExecutionOutcome, Executor, RunColumn } from './executor.ts';
import { SKIP_CODES } from './executors/index.ts';
import { finishedAppends, type RowStep, record, recordStart, stoppedAppends } from './record.ts';
import { rowInputsLoader } from './row-inputs.ts';
import { runRowWriter } from './row-writer.ts';
import { RUN_ROW, rowIdempotencyKey, runStream } from './run-state.ts';

/** A row's work item (src/domain/runs/queue-worker.ts); items enqueued before carry no cells. */
interface RowPayload {
  runId: string;
  rowId: string;
  tableId: string;
  cells?: Record<string, unknown>;
}

/** Picks the executor of a column's provider (src/domain/runs/executors/: `executorsFrom`). */
export type ExecutorFor = (config: Readonly<Record<string, unknown>>) => Executor;

/**
 * Rows of one process's run-row worker at once, calling or recording their results; each run's own
 * concurrency (calls at once, up to 64) holds across processes.
 */
const ROWS_AT_ONCE = 128;
/**
 * How long a row stays with a process that stops renewing it: after a crash, its rows in flight are
 * worked again this long after (renewed every third of it while the row runs, so a call taking
 * minutes keeps its row).
 */
export const ROW_LEASE_MS = 10_000;

/** The table's columns as a run's executor sees them (for mappings that name other columns), per run. */
const columnCache = new Map<string, Promise<RunColumn[]>>();

async function tableColumns(deps: AppDeps, run: RunCreatedData): Promise<RunColumn[]> {
  let columns = columnCache.get(run.runId);
  if (!columns) {
    columns = deps.pool
      .query<ColumnRow>(`SELECT id, key, data_type, config FROM ${COLUMNS} WHERE table_id = $1`, [
        run.tableId,
      ])
      .then(({ rows }) =>
        rows.map((c) => ({ id: c.id, key: c.key, dataType: c.data_type, config: c.config })),
      );
    columnCache.set(run.runId, columns);
    if (columnCache.size > 100) columnCache.delete(columnCache.keys().next().value!);
  }
  return columns;
}

/** A row's result as the run records it: its outcome, error, what the executor reported and its charge. */
const finished = (
  step: RowStep,
  run: RunCreatedData,
  outcome: ExecutionOutcome | { skipped: { code: string; message: string } },
): RunRowFinishedData => {
  const base = { runId: step.runId, rowId: step.rowId, at: step.at };
  if ('skipped' in outcome)
    return { ...base, outcome: 'skipped', error: outcome.skipped, meta: null, charged: 0 };
  const error = outcome.ok ? null : outcome.error;
  return {
    ...base,
    outcome: outcome.ok ? 'succeeded' : SKIP_CODES.has(outcome.error.code) ? 'skipped' : 'failed',
    error,
    meta: outcome.meta,
    charged: rowCharge(run.creditsPerRow, error, outcome.meta.cached),
  };
};

/**
 * One row of a run: skipped when the run was asked to stop before it started, else started, handed to
 * the column's executor, and its result recorded on the run and in the cell. Every event's id comes
 * from the run and the row, so a row worked again (its holder died mid-call) records once; its call,
 * repeated, carries the same Idempotency-Key.
 */
export const runRowWorker =
  (executorsOf: (deps: AppDeps) => ExecutorFor): WorkerFactory =>
  (deps) => {
    const executorFor = executorsOf(deps);
    const inputsOf = rowInputsLoader(deps);
    // How each run started (its column, credits, concurrency): it never changes, so read once a run.
    const started = new Map<string, Promise<RunCreatedData | undefined>>();
    const createdRun = (runId: string) => {
      let run = started.get(runId);
      if (!run) {
        run = loadState(deps.store, runStream.name(runId), runStream).then(({ state }) => state.created);
        run.catch(() => started.delete(runId));
        started.set(runId, run);
        if (started.size > 100) started.delete(started.keys().next().value!);
      }
      return run;
    };
    return {
      kind: RUN_ROW,
      concurrency: ROWS_AT_ONCE,
      leaseMs: ROW_LEASE_MS,
      async handle(item, signal) {
        const { runId, rowId, tableId, cells } = item.payload as RowPayload;
        // The row is running from its claim (a stop cancels what is not claimed: `cancelGroup`), and
        // its cells came with it; items enqueued without cells read them, and the run's state, first.
        const { run: state, cells: stored } =
          cells === undefined
            ? await inputsOf(runId, tableId, rowId)
            : { run: { created: await createdRun(runId) }, cells };
        const run = state.created;
        if (!run) return { status: 'dead', error: `no run ${runId}` };
        const step: RowStep = { runId, tableId: run.tableId, columnId: run.columnId, rowId, at: '' };
        const at = () => deps.clock().toISOString();
        let started: Promise<void> | undefined;
        try {
          if (state.stopRequestedAt || state.finished) {
            step.at = at();
            await record(deps.store, stoppedAppends(step));
            return { status: 'done' };
          }
          // The start is recorded alongside the call, not before it: the call does not wait for the
          // round trip. The result (below) lands in the same append or a later one, never before it.
          started = recordStart(deps.store, { ...step, at: at() });
          started.catch(() => {}); // awaited below; a failure is handled there, not left unhandled
          const columns = await tableColumns(deps, run);
          let outcome: ExecutionOutcome | { skipped: { code: string; message: string } };
          if (!stored) outcome = { skipped: { code: 'row_not_found', message: 'the row was deleted' } };
          else {
            const keyOf = new Map(columns.map((c) => [c.id, c.key]));
            const cells = Object.fromEntries(
              Object.entries(stored).flatMap(([id, value]) =>
                keyOf.has(id) ? [[keyOf.get(id)!, value]] : [],
              ),
            );
            outcome = await executorFor(run.column.config)({
              organizationId: run.organizationId,
              tableId: run.tableId,
              runId,
              column: run.column,
              row: { id: rowId, cells },
              columns,
              idempotencyKey: rowIdempotencyKey(runId, rowId),
              resolveSecret: (name) =>
                secretsFor(deps)
                  .resolveSecret(run.organizationId, name)
                  .catch((error) => {
                    if (error instanceof AppError && error.code === 'not_found') return undefined;
                    throw error;
                  }),
              rows: runRowWriter(deps, run),
              signal,
              now: deps.clock,
            });
          }
          // Shutting down or the lease lost: nothing is recorded, the row is worked again (same key).
          if (signal.aborted) throw signal.reason ?? new Error('aborted');
          // The row keeps its slot until its result is recorded (freeing it at the call's end measured
          // 20 % faster): the issue bounds the calls a crash repeats by the run's concurrency, and rows
          // called but not yet recorded are repeated too.
          step.at = at();
          const value = 'ok' in outcome && outcome.ok ? outcome.value : undefined;
          // Submitted without waiting for the start to land: the group commit writes one batch at a
          // time in the order of submission (record.ts), so the result goes with the start or after
          // it, and a cell never goes back from its result to `running`. A start still waiting for
          // its append then goes in one with its result: one wait for the row instead of two.
          const result = record(deps.store, finishedAppends(step, finished(step, run, outcome), value));
          result.catch(() => {}); // awaited below, after the start
          await started;
          await result;
          return { status: 'done' };
        } catch (error) {
          // A bug or an outage: the worker retries the row; its last attempt records `internal`, so that
          // the run can end (a row that never records a result would keep its run from ending).
          if (item.attempts < MAX_THROWS || signal.aborted) throw error;
          await started?.catch(() => {}); // the start first, if it lands: the result must come after it
          step.at = at();
          const message = error instanceof Error ? error.message : String(error);
          const broken = {
            ok: false as const,
            error: { code: 'internal', message },
            meta: { durationMs: 0, attempts: item.attempts },
          };
          await record(deps.store, finishedAppends(step, finished(step, run, broken)));
          return { status: 'done' };
        }
      },
    };
  };
