import type { Config } from '../config.ts';
import type { Pool } from '../db/pool.ts';
import type { EventStore } from './port.ts';
import { PostgresEventStore } from './postgres.ts';
import type { EventRegistry } from './registry.ts';

/** EVENTSTORE_URL chooses EventStoreDB; otherwise the PostgreSQL event store in the service's database. */
export async function openEventStore(
  config: Config,
  pool: Pool,
  registry: EventRegistry,
): Promise<EventStore> {
  if (config.EVENTSTORE_URL) {
    const { connectEventStoreDb } = await import('./eventstoredb.ts');
    return connectEventStoreDb(config.EVENTSTORE_URL, registry);
  }
  return new PostgresEventStore(pool, registry);
}
