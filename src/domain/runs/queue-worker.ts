import { ROWS } from '../../../projections/rows/rows.ts';
import { loadState } from '../../command.ts';
import type { WorkerFactory } from '../../feature.ts';
import { enqueueInGroup } from '../../work/groups.ts';
import { existing } from '../../work/queue.ts';
import { finishedAppends, queuedAppend, recordAll, stoppedAppends } from './record.ts';
import { ROW_LEASE_MS } from './row-worker.ts';
import { RUN_QUEUE, RUN_ROW, runRowItemId, runStream } from './run-state.ts';

/** Rows queued in the first step (soon working) and in each step after (ahead of the rows running). */
const FIRST_STEP = 64;
const STEP = 1000;

const rowDeleted = { code: 'row_not_found', message: 'the row was deleted' };

/**
 * A run's rows become work, a step at a time (the run reactor enqueues this once per run): each step's
 * cells are recorded `queued` (one RunRowsQueued a step), then its rows enqueued with their cells (read here, a step at once), so
 * a cell shows `queued` before its row can start and a row needs no read before its call. This was
 * the start request's job, which for 10,000 rows took seconds before the run could answer; here the
 * first rows run while the rest are being queued. Once the run is stopped its group takes nothing
 * more (`cancelGroup`): the rows not yet enqueued are skipped here. Every event and item id comes from
 * the run and the row, so a step done again (this item's holder died) adds nothing.
 */
export const runQueueWorker: WorkerFactory = (deps) => ({
  kind: RUN_QUEUE,
  concurrency: 4,
  leaseMs: ROW_LEASE_MS,
  async handle(item, signal) {
    const { runId } = item.payload as { runId: string };
    const run = (await loadState(deps.store, runStream.name(runId), runStream)).state.created;
    if (!run) return { status: 'dead', error: `no run ${runId}` };
    const { tableId, columnId, organizationId, concurrency, rowIds } = run;
    const group = { kind: RUN_ROW, groupKey: runId };
    for (let next = 0; next < rowIds.length; ) {
      if (signal.aborted) throw signal.reason ?? new Error('aborted');
      const step = rowIds.slice(next, next + (next === 0 ? FIRST_STEP : STEP));
      const at = deps.clock().toISOString();
      const { rows } = await deps.pool.query<{ id: string; cells: Record<string, unknown> }>(
        `SELECT id, cells FROM ${ROWS} WHERE table_id = $1 AND id = ANY($2)`,
        [tableId, step],
      );
      const cellsOf = new Map(rows.map((r) => [r.id, r.cells]));
      const present = step.filter((rowId) => cellsOf.has(rowId));
      await recordAll(deps.store, [
        ...queuedAppend({ runId, tableId, columnId, at }, next, present),
        ...step
          .filter((rowId) => !cellsOf.has(rowId))
          .flatMap((rowId) =>
            finishedAppends(
              { runId, tableId, columnId, rowId, at },
              { runId, rowId, outcome: 'skipped', error: rowDeleted, meta: null, charged: 0, at },
            ),
          ),
      ]);
      const enqueued = await enqueueInGroup(
        deps.pool,
        group,
        present.map((rowId) => ({
          id: runRowItemId(runId, rowId),
          organizationId,
          groupLimit: concurrency,
          payload: { runId, rowId, tableId, cells: cellsOf.get(rowId) },
        })),
      );
      if (enqueued === 'cancelled') {
        // Only rows never enqueued: a row enqueued before (this item done again after its holder
        // died) was the stop's to skip, or is running, or done.
        const rest = rowIds.slice(next);
        const known = await existing(
          deps.pool,
          rest.map((rowId) => runRowItemId(runId, rowId)),
        );
        await recordAll(
          deps.store,
          rest
            .filter((rowId) => !known.has(runRowItemId(runId, rowId)))
            .flatMap((rowId) => stoppedAppends({ runId, tableId, columnId, rowId, at })),
        );
        return { status: 'done' };
      }
      deps.work?.nudge(RUN_ROW);
      next += step.length;
    }
    return { status: 'done' };
  },
});
