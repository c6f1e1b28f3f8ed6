import type { PoolClient } from '../db/pool.ts';
import { enqueue } from '../work/queue.ts';
import type { ApplyContext, TableNames } from './types.ts';

const sameName: TableNames = (logical) => logical;

/** A batch's context whose work items are enqueued in its transaction: what applying an event does. */
export const applyContext = (tx: PoolClient, table: TableNames = sameName): ApplyContext => ({
  tx,
  table,
  enqueue: (items) => enqueue(tx, items),
});

/** The same for events whose work was enqueued when they were first applied: a rebuild's replay. */
export const replayContext = (tx: PoolClient, table: TableNames): ApplyContext => ({
  tx,
  table,
  enqueue: async () => 0,
});
