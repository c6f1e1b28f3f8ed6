import { PostgresEventStore } from '../../src/event-store/postgres.ts';
import type { Projections } from '../../src/projection/projections.ts';
import { freshDatabase, type TestDatabase } from './postgres.ts';
import { testRegistry } from './test-streams.ts';

/** A suite's fresh database, its event store and (when a test starts one) a projections runner. */
export interface StoreContext {
  db: TestDatabase;
  store: PostgresEventStore;
  projections?: Projections;
}

/** Opens a fresh database and an event store over it into the suite's context. */
export async function openStore(ctx: StoreContext): Promise<void> {
  ctx.db = await freshDatabase();
  ctx.store = new PostgresEventStore(ctx.db.pool, testRegistry);
}

/** Stops the runner if one was started, closes the store and drops the database. */
export async function closeStore(ctx: StoreContext): Promise<void> {
  await ctx.projections?.stop();
  ctx.projections = undefined;
  await ctx.store.close();
  await ctx.db.drop();
}
