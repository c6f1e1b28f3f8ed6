import type { Pool } from '../db/pool.ts';
import { withSessionLock } from '../db/session-lock.ts';

/*
 * The accounts commands' locks keep apart what the log's optimistic concurrency cannot see alone (a
 * decision over several streams); they are never what keeps the log consistent: a lock lost midway
 * leaves a refusal, not a corrupt account.
 */

/** One bootstrap of an address at a time; `busy` is thrown at once when another one runs. */
export const withEmailLock = <T>(pool: Pool, email: string, busy: () => Error, fn: () => Promise<T>) =>
  withSessionLock(pool, `bootstrap:${email.toLowerCase()}`, { wait: false, busy }, fn);

/** One change to who may manage an organization's keys at a time (waits for the one running). */
export const withOrganizationKeysLock = <T>(pool: Pool, organizationId: string, fn: () => Promise<T>) =>
  withSessionLock(pool, `organization-keys:${organizationId}`, { wait: true }, fn);
