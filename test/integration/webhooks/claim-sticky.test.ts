import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { claimSticky, settleAndClaimSticky } from '../../../src/work/batch.ts';
import { enqueue, release, settleMany } from '../../../src/work/queue.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';

/*
 * The sticky claim webhook deliveries use (src/work/batch.ts, migrations 0016 and 0018): a group's items
 * all in one process, up to the group's limit, oldest first; ungrouped items as a plain claim takes them.
 */
const test = suite<{ db: TestDatabase }>('work queue: sticky claims of a group');
test.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
});
test.after.each(async ({ db }) => db.drop());

const minute = 60_000;
const base = Date.now() - 10 * minute;
const item = (id: string, at: number, group?: string, limit = 3) => ({
  id,
  kind: 'test',
  organizationId: 'org-1',
  groupKey: group,
  groupLimit: group ? limit : undefined,
  payload: { id },
  runAt: new Date(base + at * 1000),
});
const claimFor = (db: TestDatabase, owner: string, limit = 100) =>
  claimSticky(db.pool, { kind: 'test', owner, limit, leaseMs: minute, now: new Date() });
const ids = (items: { id: string }[]) => items.map((i) => i.id);

test("a group's oldest items up to its limit, in order, with the claim counted", async ({ db }) => {
  await enqueue(db.pool, [
    item('g-3', 3, 'g'),
    item('g-1', 1, 'g'),
    item('g-4', 4, 'g'),
    item('g-2', 2, 'g'),
  ]);
  const claimed = await claimFor(db, 'a');
  assert.equal(ids(claimed), ['g-1', 'g-2', 'g-3']);
  assert.equal(
    claimed.map((i) => i.attempts),
    [1, 1, 1],
  );
  // The limit is reached: nothing more until one settles, then the next oldest.
  assert.equal(await claimFor(db, 'a'), []);
  await settleMany(db.pool, 'a', [{ id: 'g-2', outcome: { status: 'done' } }]);
  assert.equal(ids(await claimFor(db, 'a')), ['g-4']);
});

test('a group held by one owner is left to it; released, anyone takes it', async ({ db }) => {
  await enqueue(db.pool, [item('g-1', 1, 'g'), item('g-2', 2, 'g'), item('h-1', 1, 'h'), item('u', 5)]);
  await enqueue(db.pool, [item('g-3', 3, 'g')]);
  assert.equal(ids(await claimFor(db, 'a', 1)), ['g-1']);
  // Another owner gets the other group and the ungrouped item, never g's.
  assert.equal(ids(await claimFor(db, 'b')).sort(), ['h-1', 'u']);
  // The holder goes on with its group.
  assert.equal(ids(await claimFor(db, 'a')), ['g-2', 'g-3']);
  await release(db.pool, 'a', ['g-1', 'g-2', 'g-3']);
  assert.equal(ids(await claimFor(db, 'b')), ['g-1', 'g-2', 'g-3']);
});

test('settled items in the table change nothing: the due ones are claimed by id', async ({ db }) => {
  const settled = Array.from({ length: 300 }, (_, i) =>
    item(`old-${String(i).padStart(3, '0')}`, i, 'g', 500),
  );
  await enqueue(db.pool, settled);
  const first = await claimFor(db, 'a', 500);
  assert.is(first.length, 300);
  await settleMany(
    db.pool,
    'a',
    first.map((i) => ({ id: i.id, outcome: { status: 'done' as const } })),
  );
  await enqueue(db.pool, [item('new-2', 2, 'g', 500), item('new-1', 1, 'g', 500)]);
  assert.equal(ids(await claimFor(db, 'b', 500)), ['new-1', 'new-2']);
  const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM work_items WHERE status = 'done'`);
  assert.is(rows[0].n, 300);
});

const settleAndClaimFor = (
  db: TestDatabase,
  owner: string,
  settlements: Parameters<typeof settleAndClaimSticky>[1]['settlements'],
  limit = 100,
) =>
  settleAndClaimSticky(db.pool, {
    kind: 'test',
    owner,
    settlements,
    limit,
    leaseMs: minute,
    now: new Date(),
  });
const statusOf = async (db: TestDatabase, id: string) =>
  (await db.pool.query('SELECT status, lease_owner FROM work_items WHERE id = $1', [id])).rows[0];

test("settled in the claim's round trip: the leases it frees count for the group's limit", async ({ db }) => {
  await enqueue(db.pool, [
    item('g-1', 1, 'g'),
    item('g-2', 2, 'g'),
    item('g-3', 3, 'g'),
    item('g-4', 4, 'g'),
  ]);
  assert.equal(ids(await claimFor(db, 'a')), ['g-1', 'g-2', 'g-3']);
  const claimed = await settleAndClaimFor(db, 'a', [
    { id: 'g-1', outcome: { status: 'done' } },
    { id: 'g-2', outcome: { status: 'retry', at: new Date(Date.now() + minute), error: 'HTTP 500' } },
  ]);
  // Two leases freed, one item due: g-2's retry is not due yet.
  assert.equal(ids(claimed), ['g-4']);
  assert.equal(claimed[0]!.attempts, 1);
  assert.equal(await statusOf(db, 'g-1'), { status: 'done', lease_owner: null });
  assert.equal(await statusOf(db, 'g-2'), { status: 'pending', lease_owner: null });
  // Nothing to settle: a claim alone, which finds the limit reached.
  assert.equal(await settleAndClaimFor(db, 'a', []), []);
});

test('a settlement of an item another owner holds changes nothing; a limit of 0 claims nothing', async ({
  db,
}) => {
  await enqueue(db.pool, [item('g-1', 1, 'g'), item('h-1', 1, 'h'), item('h-2', 2, 'h')]);
  assert.equal(ids(await claimFor(db, 'a', 1)), ['g-1']);
  const claimed = await settleAndClaimFor(db, 'b', [{ id: 'g-1', outcome: { status: 'done' } }], 0);
  assert.equal(claimed, []);
  assert.equal(await statusOf(db, 'g-1'), { status: 'leased', lease_owner: 'a' });
  // The holder settles it and claims in the same call: g is its own, h anyone's; oldest first.
  const next = await settleAndClaimFor(db, 'a', [{ id: 'g-1', outcome: { status: 'done' } }]);
  assert.equal(ids(next), ['h-1', 'h-2']);
  assert.equal(await statusOf(db, 'g-1'), { status: 'done', lease_owner: null });
});

test.run();
