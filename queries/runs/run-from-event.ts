import type { RunCreatedData } from '../../src/domain/runs/events.ts';
import { runRowCounts } from '../../src/domain/runs/run-state.ts';
import type { RunView } from '../../src/domain/runs/schemas.ts';

/** A run as its start event tells it: what a start answers when the read model is still behind. */
export const runFromEvent = (run: RunCreatedData): RunView => ({
  id: run.runId,
  tableId: run.tableId,
  columnId: run.columnId,
  trigger: run.trigger,
  status: 'queued',
  counts: {
    total: runRowCounts(run).total,
    queued: runRowCounts(run).funded,
    running: 0,
    succeeded: 0,
    failed: 0,
    skipped: runRowCounts(run).total - runRowCounts(run).funded,
  },
  credits: { reserved: run.reserved, charged: 0, refunded: 0 },
  createdAt: run.at,
  startedAt: null,
  stoppingAt: null,
  finishedAt: null,
  error: null,
});
