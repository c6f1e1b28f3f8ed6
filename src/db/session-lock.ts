import pg from 'pg';
import type { Pool } from './pool.ts';

/**
 * A session-level PostgreSQL advisory lock around `fn`, across every process of the service. It is held
 * on a connection of its own: a pooled connection would carry the lock back into
 * the pool, and holding a pooled one while `fn` appends through the same pool could exhaust it. A
 * process that dies loses its connection, and PostgreSQL releases its locks with it: a lock held is a
 * process at work, which is what the bootstrap's takeover rule relies on.
 * `wait: false` throws `busy()` at once when another session holds the lock.
 */
export async function withSessionLock<T>(
  pool: Pool,
  key: string,
  mode: { wait: true } | { wait: false; busy: () => Error },
  fn: () => Promise<T>,
): Promise<T> {
  const client = new pg.Client(pool.options);
  client.on('error', () => {});
  await client.connect();
  try {
    if (mode.wait) await client.query('SELECT pg_advisory_lock(hashtext($1))', [key]);
    else {
      const { rows } = await client.query('SELECT pg_try_advisory_lock(hashtext($1)) AS ok', [key]);
      if (!rows[0].ok) throw mode.busy();
    }
    try {
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [key]).catch(() => {});
    }
  } finally {
    await client.end().catch(() => {});
  }
}
