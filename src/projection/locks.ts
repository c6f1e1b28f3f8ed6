import type { Pool, PoolClient } from '../db/pool.ts';

/**
 * Whether some session of this database holds the advisory lock `pg_advisory_lock(hashtext(key))`:
 * read from pg_locks rather than by trying the lock, which would push a starting holder to standby.
 * A single bigint key shows there as classid (high 32 bits) and objid (low 32 bits), objsubid 1.
 */
export async function advisoryLockHeld(db: Pool | PoolClient, key: string): Promise<boolean> {
  const { rows } = await db.query<{ held: boolean }>(
    `SELECT EXISTS (
       SELECT 1 FROM pg_locks
       WHERE locktype = 'advisory' AND objsubid = 1 AND granted
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND ((classid::bigint << 32) | objid::bigint) = hashtext($1)::bigint
     ) AS held`,
    [key],
  );
  return rows[0]!.held;
}

/** The advisory lock keys of the projection machinery, in one place. */
export const lockKeys = {
  runner: (projection: string) => `projection:${projection}`,
  rebuild: (projection: string) => `projection-rebuild:${projection}`,
  ddl: (projection: string) => `projection-ddl:${projection}`,
};
