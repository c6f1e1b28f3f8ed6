import type { RunEvent } from '../../src/domain/runs/events.ts';
import { RUN_ROW, runRowItemId } from '../../src/domain/runs/run-state.ts';
import type { Projection } from '../../src/projection/types.ts';
import { enqueue } from '../../src/work/queue.ts';

/**
 * A run's start becomes one work item per row (DESIGN section 9), in the transaction that moves this
 * reactor's checkpoint: each start is turned into work exactly once, and an item's id (run and row)
 * makes a repeat a no-op. The run is the items' group, its concurrency their limit across processes.
 * No tables of its own; never bump its version (a rebuild would read the whole log again; the ids
 * make that harmless only while the items are kept).
 */
export const runReactor: Projection<Extract<RunEvent, { type: 'RunCreated' }>> = {
  name: 'run-reactor',
  version: 1,
  handles: ['RunCreated'],
  tables: {},
  async apply(events, { tx }) {
    const items = events.flatMap((event) => {
      const { runId, organizationId, tableId, rowIds, concurrency } = event.data;
      return rowIds.map((rowId) => ({
        id: runRowItemId(runId, rowId),
        kind: RUN_ROW,
        organizationId,
        groupKey: runId,
        groupLimit: concurrency,
        payload: { runId, rowId, tableId },
      }));
    });
    for (let i = 0; i < items.length; i += 5000) await enqueue(tx, items.slice(i, i + 5000));
  },
};
