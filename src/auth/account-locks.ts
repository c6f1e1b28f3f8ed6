import pg from 'pg';
import type { Pool } from '../db/pool.ts';

/**
 * Session-level PostgreSQL advisory locks for the accounts commands, across every process of the
 * service. Each is held on a connection of its own: a pooled connection would carry the lock back into
 * the pool, and holding a pooled one while `fn` appends through the same pool could exhaust it. A
 * process that dies loses its connection, and PostgreSQL releases its locks with it: a lock held is a
 * process at work, which is what the bootstrap's takeover rule relies on.
 *
 * The locks keep apart what the log's optimistic concurrency cannot see alone (a decision over several
 * streams); they are never what keeps the log consistent: a lock lost midway leaves a refusal, not a
 * corrupt account.
 */
async function withSessionLock<T>(
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

/** One bootstrap of an address at a time; `busy` is thrown at once when another one runs. */
export const withEmailLock = <T>(pool: Pool, email: string, busy: () => Error, fn: () => Promise<T>) =>
  withSessionLock(pool, `bootstrap:${email.toLowerCase()}`, { wait: false, busy }, fn);

/** One change to who may manage an organization's keys at a time (waits for the one running). */
export const withOrganizationKeysLock = <T>(pool: Pool, organizationId: string, fn: () => Promise<T>) =>
  withSessionLock(pool, `organization-keys:${organizationId}`, { wait: true }, fn);
