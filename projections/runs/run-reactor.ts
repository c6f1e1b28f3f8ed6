import type { RunEvent } from '../../src/domain/runs/events.ts';
import { RUN_QUEUE, runQueueItemId, runRowCounts } from '../../src/domain/runs/run-state.ts';
import type { Projection } from '../../src/projection/types.ts';

/**
 * A run's start becomes work (DESIGN section 9), in the transaction that moves this reactor's
 * checkpoint: each start is turned into work exactly once, and the item's id (the run's) makes a
 * repeat a no-op. The item's holder drives the run's rows (processes/runs/run-driver.ts: a step at a
 * time queued, then called at the run's concurrency, their results recorded). Runs with no rows to
 * run have nothing to drive (the runs read model ends them). No tables of its own; never bump its
 * version (a rebuild would read the whole log again; the ids make that harmless only while the items
 * are kept).
 */
export const runReactor: Projection<Extract<RunEvent, { type: 'RunCreated' }>> = {
  name: 'run-reactor',
  version: 1,
  enqueues: [RUN_QUEUE],
  handles: ['RunCreated'],
  tables: {},
  async apply(events, { enqueue }) {
    await enqueue(
      events
        .filter((event) => runRowCounts(event.data).funded > 0)
        .map((event) => ({
          id: runQueueItemId(event.data.runId),
          kind: RUN_QUEUE,
          organizationId: event.data.organizationId,
          payload: { runId: event.data.runId },
        })),
    );
  },
};
