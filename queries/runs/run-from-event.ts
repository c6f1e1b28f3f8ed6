import type { RunCreatedData } from '../../src/domain/runs/events.ts';
import type { RunView } from '../../src/domain/runs/schemas.ts';

/** A run as its start event tells it: what a start answers when the read model is still behind. */
export const runFromEvent = (run: RunCreatedData): RunView => ({
  id: run.runId,
  tableId: run.tableId,
  columnId: run.columnId,
  trigger: run.trigger,
  status: 'queued',
  counts: {
    total: run.rowIds.length + run.unfundedRowIds.length,
    queued: run.rowIds.length,
    running: 0,
    succeeded: 0,
    failed: 0,
    skipped: run.unfundedRowIds.length,
  },
  credits: { reserved: run.reserved, charged: 0, refunded: 0 },
  createdAt: run.at,
  startedAt: null,
  stoppingAt: null,
  finishedAt: null,
  error: null,
});
