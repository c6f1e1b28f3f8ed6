import { startRun } from '../../commands/runs/start-run.ts';
import { AUTORUN_KIND, AUTORUN_PENDING, pendingLock } from '../../projections/autorun/autorun.ts';
import { rowsProjection } from '../../projections/rows/rows.ts';
import { RUNS } from '../../projections/runs/runs.ts';
import { inTransaction } from '../../src/db/pool.ts';
import { AppError } from '../../src/errors.ts';
import type { WorkerFactory } from '../../src/feature.ts';
import { derivedId } from '../../src/ids.ts';
import type { Outcome } from '../../src/work/worker.ts';

/** Rows one auto-run takes at most (a run's selected rows are bounded like an insert batch). */
const RUN_ROWS = 1000;
/** While the column's previous run is active, look again after this long. */
const BUSY_RETRY_MS = 1000;
/**
 * ...or after this long once that run has no row left to run. Its end makes this item due at once
 * (processes/runs/finish-worker.ts), but only an item pending: one whose retry is not stored yet (the
 * worker stores it with its next round trip) stayed put for BUSY_RETRY_MS, the one-second tail of the
 * insert to result latency (docs/benchmarks.md).
 */
export const ENDING_RETRY_MS = 50;

/** When to look again at a column held by a run, from what the runs read model shows of that run. */
export const busyRetryMs = (run: { left: number; finished: boolean } | undefined): number =>
  run && (run.finished || run.left === 0) ? ENDING_RETRY_MS : BUSY_RETRY_MS;

interface PendingRow {
  seq: string;
  organization_id: string;
  table_id: string;
  row_id: string;
  trigger: 'onInsert' | 'onSourceUpdate';
  commit_position: string;
  prepare_position: string;
}

/**
 * Starts the runs auto-run asks for: the pending rows of one column (projections/autorun/), oldest
 * first, at most RUN_ROWS a run, one trigger a run. A column runs one run at a time, so while its
 * previous run is active the rows wait and the item is tried again. A run's id comes from the
 * first pending row it takes, so a worker that dies between starting a run and clearing its rows
 * starts the same run again, which is a no-op.
 */
export const autorunWorker: WorkerFactory = (deps) => ({
  kind: AUTORUN_KIND,
  concurrency: 4,
  async handle(item): Promise<Outcome> {
    const { columnId } = item.payload as { tableId: string; columnId: string };
    for (;;) {
      const { rows } = await deps.pool.query<PendingRow>(
        `SELECT seq, organization_id, table_id, row_id, trigger, commit_position, prepare_position
         FROM ${AUTORUN_PENDING} WHERE column_id = $1 ORDER BY seq LIMIT $2`,
        [columnId, RUN_ROWS],
      );
      if (rows.length === 0) {
        // Under the reactor's lock: none pending now, and any added after this will come with an item.
        const empty = await inTransaction(deps.pool, async (tx) => {
          await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [pendingLock(columnId)]);
          const { rows: left } = await tx.query(
            `SELECT 1 FROM ${AUTORUN_PENDING} WHERE column_id = $1 LIMIT 1`,
            [columnId],
          );
          return left.length === 0;
        });
        if (empty) return { status: 'done' };
        continue;
      }
      const first = rows[0]!;
      const taken = rows.filter((r) => r.trigger === first.trigger);
      const last = taken.at(-1)!;
      // The rows read model must show these rows (and the change that asked) before the run reads them.
      await deps.projections.waitFor(
        { commit: BigInt(last.commit_position), prepare: BigInt(last.prepare_position) },
        [rowsProjection],
        30_000,
      );
      try {
        await startRun(deps, {
          runId: derivedId('run', `${item.id}:${first.seq}`),
          organizationId: first.organization_id,
          tableId: first.table_id,
          columnId,
          scope: { scope: 'selected', rowIds: taken.map((r) => r.row_id), onlyEmpty: false },
          trigger: first.trigger,
          metadata: { correlationId: item.id, actor: 'system:autorun' },
        });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        if (error.code === 'run_in_progress') {
          const { rows: holding } = await deps.pool.query<{ left: number; finished: boolean }>(
            `SELECT queued + running AS left, finished_at IS NOT NULL AS finished FROM ${RUNS} WHERE id = $1`,
            [error.extra.runId],
          );
          const at = new Date(deps.clock().getTime() + busyRetryMs(holding[0]));
          return { status: 'retry', at, error: error.code };
        }
        // The column or table went, the column stopped being runnable, or no credit covers a row:
        // these rows are not run (insufficient_credits is logged; the estimate shows the balance).
        deps.logger.warn({ columnId, code: error.code }, 'auto-run rows dropped');
      }
      await deps.pool.query(
        `DELETE FROM ${AUTORUN_PENDING} WHERE column_id = $1 AND seq = ANY($2::bigint[])`,
        [columnId, taken.map((r) => r.seq)],
      );
    }
  },
});
