import type { PoolClient } from '../db/pool.ts';
import type { EventStore } from '../event-store/port.ts';
import { enqueue } from '../work/queue.ts';
import type { ApplyContext, TableNames } from './types.ts';

/** What a batch's context takes from the event store: where its events are in SQL, if they are. */
type Source = Pick<EventStore, 'eventDataSql'> | undefined;

const sameName: TableNames = (logical) => logical;

/** A batch's context whose work items are enqueued in its transaction: what applying an event does. */
export const applyContext = (
  tx: PoolClient,
  table: TableNames = sameName,
  source?: Source,
): ApplyContext => ({
  tx,
  table,
  enqueue: (items) => enqueue(tx, items),
  eventDataSql: source?.eventDataSql,
});

/** The same for events whose work was enqueued when they were first applied: a rebuild's replay. */
export const replayContext = (tx: PoolClient, table: TableNames, source?: Source): ApplyContext => ({
  tx,
  table,
  enqueue: async () => 0,
  eventDataSql: source?.eventDataSql,
});
