import type { Pool, PoolClient } from '../db/pool.ts';

/**
 * Whether some session of this database holds the advisory lock `pg_advisory_lock(hashtext(key))`:
 * read from pg_locks rather than by trying the lock, which would push a starting holder to standby.
 * A single bigint key shows there as classid (high 32 bits) and objid (low 32 bits), objsubid 1.
 */
export async function advisoryLockHeld(db: Pool | PoolClient, key: string): Promise<boolean> {
  return (await advisoryLocksHeld(db, [key])).has(key);
}

/** Which of these keys' advisory locks some session holds: one read of pg_locks for all of them. */
export async function advisoryLocksHeld(
  db: Pool | PoolClient,
  keys: readonly string[],
): Promise<Set<string>> {
  const { rows } = await db.query<{ key: string }>(
    `SELECT k.key FROM unnest($1::text[]) AS k(key)
     WHERE EXISTS (
       SELECT 1 FROM pg_locks
       WHERE locktype = 'advisory' AND objsubid = 1 AND granted
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND ((classid::bigint << 32) | objid::bigint) = hashtext(k.key)::bigint
     )`,
    [keys],
  );
  return new Set(rows.map((r) => r.key));
}

/** The advisory lock keys of the projection machinery, in one place. */
export const lockKeys = {
  runner: (projection: string) => `projection:${projection}`,
  rebuild: (projection: string) => `projection-rebuild:${projection}`,
  ddl: (projection: string) => `projection-ddl:${projection}`,
};
