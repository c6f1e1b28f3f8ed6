import { suite, type Test } from 'uvu';
import { claim } from '../../src/work/queue.ts';
import { freshDatabase, type TestDatabase } from './postgres.ts';

/* The durable work queue (src/work/, DESIGN section 9) over a fresh database for every test. */
export type Ctx = { db: TestDatabase };

/** A suite whose every test has a database of its own, dropped after it. */
export function workQueueSuite(name: string): Test<Ctx> {
  const test = suite<Ctx>(name);
  test.before.each(async (ctx) => {
    ctx.db = await freshDatabase();
  });
  test.after.each(async ({ db }) => db.drop());
  return test;
}

export const now = () => new Date();

/** An item of kind `test`, in `group` if given, due at `runAt` if given. */
export const item = (id: string, group?: { key: string; limit: number }, runAt?: Date) => ({
  id,
  kind: 'test',
  organizationId: 'org-1',
  groupKey: group?.key,
  groupLimit: group?.limit,
  payload: { id },
  runAt,
});

export const claimFor = (db: TestDatabase, owner: string, limit: number, at = now(), leaseMs = 60_000) =>
  claim(db.pool, { kind: 'test', owner, limit, leaseMs, now: at });

export const statusOf = async (db: TestDatabase, id: string) =>
  (await db.pool.query('SELECT status, attempts FROM work_items WHERE id = $1', [id])).rows[0];
