import { loadState } from '../../command.ts';
import type { WorkerFactory } from '../../feature.ts';
import { enqueue, existing } from '../../work/queue.ts';
import type { RunCreatedData } from './events.ts';
import { queuedAppend, recordAll, stoppedAppends } from './record.ts';
import { ROW_LEASE_MS } from './row-worker.ts';
import { RUN_QUEUE, RUN_ROW, runRowItemId, runStream } from './run-state.ts';

/** Rows queued in the first step (soon working) and in each step after (ahead of the rows running). */
const FIRST_STEP = 64;
const STEP = 1000;

/**
 * A run's rows become work, a step at a time (the run reactor enqueues this once per run): each step's
 * cells are recorded `queued`, then its rows enqueued, so a row's cell shows `queued` before the row
 * can start. This was the start request's job, which for 10,000 rows took seconds before the run
 * could answer; here the first rows run while the rest are being queued. A stop seen between steps
 * skips the rows not yet queued (the stop cancels the queued ones; a row enqueued just after a stop
 * sees it and is skipped). Every event and item id comes from the run and the row, so a step done
 * again (this item's holder died) adds nothing.
 */
export const runQueueWorker: WorkerFactory = (deps) => ({
  kind: RUN_QUEUE,
  concurrency: 4,
  leaseMs: ROW_LEASE_MS,
  async handle(item, signal) {
    const { runId } = item.payload as { runId: string };
    const stream = runStream.name(runId);
    let { state } = await loadState(deps.store, stream, runStream);
    const run: RunCreatedData | undefined = state.created;
    if (!run) return { status: 'dead', error: `no run ${runId}` };
    const { tableId, columnId, organizationId, concurrency } = run;
    const rowIds = run.rowIds;
    let next = 0;
    while (next < rowIds.length) {
      if (signal.aborted) throw signal.reason ?? new Error('aborted');
      if (state.stopRequestedAt || state.finished) {
        const at = deps.clock().toISOString();
        // Only rows never enqueued: a row enqueued before (this item done again after its holder died)
        // is the stop's to skip, or running, or done.
        const enqueued = await existing(
          deps.pool,
          rowIds.slice(next).map((rowId) => runRowItemId(runId, rowId)),
        );
        const rest = rowIds.slice(next).filter((rowId) => !enqueued.has(runRowItemId(runId, rowId)));
        await recordAll(
          deps.store,
          rest.flatMap((rowId) => stoppedAppends({ runId, tableId, columnId, rowId, at })),
        );
        return { status: 'done' };
      }
      const step = rowIds.slice(next, next + (next === 0 ? FIRST_STEP : STEP));
      const at = deps.clock().toISOString();
      await recordAll(
        deps.store,
        step.flatMap((rowId) => queuedAppend({ runId, tableId, columnId, rowId, at })),
      );
      await enqueue(
        deps.pool,
        step.map((rowId) => ({
          id: runRowItemId(runId, rowId),
          kind: RUN_ROW,
          organizationId,
          groupKey: runId,
          groupLimit: concurrency,
          payload: { runId, rowId, tableId },
        })),
      );
      deps.work?.nudge(RUN_ROW);
      next += step.length;
      if (next < rowIds.length) ({ state } = await loadState(deps.store, stream, runStream));
    }
    return { status: 'done' };
  },
});
