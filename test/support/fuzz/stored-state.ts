import type { Pool } from '../../../src/db/pool.ts';
import {
  comparePositions,
  type EventStore,
  type Position,
  type RecordedEvent,
} from '../../../src/event-store/port.ts';
import type { Projections } from '../../../src/projection/projections.ts';

/**
 * Tables that legitimately change on a refused request, so a checksum over them would cry wolf:
 * the events and their streams are compared by the log's head instead; api_key_usage is telemetry
 * written on every authenticated request (src/auth/last-used.ts), refused or not; projection
 * checkpoints move on their own, and so do the console's lag samples (processes/console/lag-sampler.ts,
 * every 10 s); the migration ledger never changes here.
 */
const NOT_READ_MODELS = new Set([
  'events',
  'streams',
  'api_key_usage',
  'projection_checkpoints',
  'projection_lag_samples',
  'pgmigrations',
]);

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * What a refused request must leave as it was: the head of the event log and a checksum of every
 * read-model table, in one query. Cheap while the state is small, which the fuzz keeps it.
 */
export async function storedState(pool: Pool, store: EventStore, projections: Projections) {
  const { rows } = await pool.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
      WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`,
  );
  const tables = rows.map((r) => r.name).filter((name) => !NOT_READ_MODELS.has(name));
  const checksums = tables.map(
    (name) =>
      `(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM ${quoteIdent(name)} t)`,
  );
  const checksumSql = `SELECT concat_ws(',', ${checksums.join(', ') || "''"}) AS sum`;

  const all = [...projections.runners.values()].map((runner) => runner.projection);
  let seen = await store.head();

  /**
   * Waits for the projections that handle an event appended since the last look: the others change
   * no row. Waiting for all of them to pass the head would hang on a known race: a projection that
   * skips unhandled events can move its in-memory position back (the idle checkpoint write in
   * src/projection/batch-committer.ts), and then waits for the next event to catch up again.
   */
  async function applied(head: Position): Promise<void> {
    if (comparePositions(head, seen) <= 0) return;
    const types = new Set<string>();
    for (let from = seen; comparePositions(from, head) < 0; ) {
      const page = await store.readAll({ from, limit: 500 });
      if (page.length === 0) break;
      for (const event of page) types.add(event.type);
      from = (page[page.length - 1] as RecordedEvent).position;
    }
    const affected = all.filter((p) => p.handles.some((type) => types.has(type)));
    try {
      await projections.waitFor(head, affected, 30_000);
    } catch (error) {
      const stuck = (await projections.status()).filter((p) => p.state === 'failed' || p.lagEvents > 0);
      const why = stuck.map((p) => `${p.name} ${p.state}${p.lastError ? `: ${p.lastError}` : ''}`);
      throw new Error(`${(error as Error).message} (${why.join('; ')})`);
    }
    seen = head;
  }

  return {
    tables,
    /** The head and the checksum, once the projections have applied everything up to the head. */
    async snapshot(): Promise<string> {
      const head = await store.head();
      // A write that succeeded is applied before the next baseline is taken, or its rows would land
      // in the middle of the next (refused) request and look like its doing.
      await applied(head);
      const { rows: sum } = await pool.query<{ sum: string }>(checksumSql);
      return `${head.commit}/${head.prepare} ${sum[0]?.sum}`;
    },
  };
}
