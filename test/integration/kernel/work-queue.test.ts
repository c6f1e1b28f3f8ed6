import * as assert from 'uvu/assert';
import { cancelPending, dueNow } from '../../../src/work/groups.ts';
import {
  enqueue,
  release,
  renew,
  requeue,
  settle,
  settleAndClaim,
  settleMany,
} from '../../../src/work/queue.ts';
import { claimFor, item, now, statusOf, workQueueSuite } from '../../support/work-queue.ts';

/* The durable work queue (src/work/, DESIGN section 9): leases, group limits, fairness. */
const test = workQueueSuite('work queue: leased items, group limits');

test('an item enqueued twice is one item (ids are deterministic)', async ({ db }) => {
  assert.is(await enqueue(db.pool, [item('a'), item('b')]), 2);
  assert.is(await enqueue(db.pool, [item('a'), item('c')]), 1);
  const { rows } = await db.pool.query('SELECT id FROM work_items ORDER BY id');
  assert.equal(
    rows.map((r) => r.id),
    ['a', 'b', 'c'],
  );
});

test('a group never has more leases than its limit, across owners', async ({ db }) => {
  const group = { key: 'run-1', limit: 3 };
  await enqueue(
    db.pool,
    Array.from({ length: 10 }, (_, i) => item(`i${i}`, group)),
  );
  const first = await claimFor(db, 'owner-a', 5);
  assert.is(first.length, 3);
  assert.is((await claimFor(db, 'owner-b', 5)).length, 0);
  assert.ok(await settle(db.pool, 'owner-a', first[0]!.id, { status: 'done' }));
  const next = await claimFor(db, 'owner-b', 5);
  assert.is(next.length, 1, 'one lease freed, one more claimed');
  // Claimed oldest first, each once.
  const ids = [...first, ...next].map((w) => w.id);
  assert.equal(ids, ['i0', 'i1', 'i2', 'i3']);
});

test('groups take turns: a long backlog does not starve a small group', async ({ db }) => {
  await enqueue(
    db.pool,
    Array.from({ length: 100 }, (_, i) =>
      item(`big-${String(i).padStart(3, '0')}`, { key: 'big', limit: 50 }),
    ),
  );
  await enqueue(db.pool, [
    item('small-1', { key: 'small', limit: 50 }),
    item('small-2', { key: 'small', limit: 50 }),
  ]);
  await enqueue(db.pool, [item('loose-1')]);
  const claimed = (await claimFor(db, 'owner', 6)).map((w) => w.id).sort();
  assert.ok(
    claimed.includes('small-1') && claimed.includes('small-2') && claimed.includes('loose-1'),
    claimed.join(),
  );
  assert.is(claimed.length, 6);
});

test('an item is due at its time by the service clock, not before', async ({ db }) => {
  const later = new Date(Date.now() + 3_600_000);
  await enqueue(db.pool, [item('later', undefined, later)]);
  assert.is((await claimFor(db, 'owner', 5)).length, 0);
  assert.is((await claimFor(db, 'owner', 5, new Date(later.getTime() + 1))).length, 1);
});

test('a lease that runs out is claimed again, and the old holder can no longer settle it', async ({ db }) => {
  await enqueue(db.pool, [item('x', { key: 'g', limit: 1 })]);
  const [first] = await claimFor(db, 'dead-owner', 1, now(), 1);
  assert.is(first?.attempts, 1);
  await new Promise((r) => setTimeout(r, 30));
  const [again] = await claimFor(db, 'live-owner', 1);
  assert.is(again?.id, 'x');
  assert.is(again?.attempts, 2);
  assert.is(await settle(db.pool, 'dead-owner', 'x', { status: 'done' }), false);
  assert.equal([...(await renew(db.pool, 'dead-owner', ['x'], 60_000))], []);
  assert.equal([...(await renew(db.pool, 'live-owner', ['x'], 60_000))], ['x']);
  assert.is(await settle(db.pool, 'live-owner', 'x', { status: 'done' }), true);
  assert.equal(await statusOf(db, 'x'), { status: 'done', attempts: 2 });
});

test('settling and claiming in one call: the freed leases count, a lost lease is not settled', async ({
  db,
}) => {
  const group = { key: 'run-3', limit: 2 };
  await enqueue(
    db.pool,
    Array.from({ length: 5 }, (_, i) => item(`s${i}`, group)),
  );
  const first = await claimFor(db, 'a', 5);
  assert.equal(
    first.map((w) => w.id),
    ['s0', 's1'],
  );
  const soon = new Date(Date.now() + 3_600_000);
  const next = await settleAndClaim(db.pool, {
    kind: 'test',
    owner: 'a',
    settlements: [
      { id: 's0', outcome: { status: 'done' } },
      { id: 's1', outcome: { status: 'retry', at: soon, error: 'busy' } },
      // Not held by `a`: left as it is.
      { id: 's4', outcome: { status: 'dead', error: 'not mine' } },
    ],
    limit: 5,
    leaseMs: 60_000,
    now: now(),
  });
  assert.equal(
    next.map((w) => w.id),
    ['s2', 's3'],
    'both leases freed by the settlements, claimed in the same call',
  );
  assert.equal(await statusOf(db, 's0'), { status: 'done', attempts: 1 });
  assert.equal(await statusOf(db, 's1'), { status: 'pending', attempts: 1 });
  assert.equal(await statusOf(db, 's4'), { status: 'pending', attempts: 0 });
  const { rows } = await db.pool.query('SELECT run_at, last_error FROM work_items WHERE id = $1', ['s1']);
  assert.is(rows[0].run_at.getTime(), soon.getTime());
  assert.is(rows[0].last_error, 'busy');
  assert.is(
    await settleMany(db.pool, 'b', [{ id: 's2', outcome: { status: 'done' } }]),
    0,
    'another owner settles nothing',
  );
  assert.is(
    await settleMany(db.pool, 'a', [
      { id: 's2', outcome: { status: 'done' } },
      { id: 's3', outcome: { status: 'done' } },
    ]),
    2,
  );
});

test('a group put off until later can be made due now', async ({ db }) => {
  const later = new Date(Date.now() + 3_600_000);
  await enqueue(db.pool, [
    item('late', { key: 'col-1', limit: 1 }, later),
    item('other', { key: 'col-2', limit: 1 }, later),
  ]);
  assert.is((await claimFor(db, 'o', 5)).length, 0);
  assert.is(await dueNow(db.pool, { kind: 'test', groupKey: 'col-1' }), 1);
  assert.equal(
    (await claimFor(db, 'o', 5)).map((w) => w.id),
    ['late'],
    'only the group named',
  );
});

test('retry, release, cancel and requeue move items as they say', async ({ db }) => {
  const group = { key: 'run-2', limit: 10 };
  await enqueue(db.pool, [item('r', group), item('s', group), item('t', group), item('u', group)]);
  const claimed = await claimFor(db, 'o', 2);
  assert.equal(
    claimed.map((w) => w.id),
    ['r', 's'],
  );
  const soon = new Date(Date.now() + 60_000);
  await settle(db.pool, 'o', 'r', { status: 'retry', at: soon, error: 'busy' });
  await release(db.pool, 'o', ['s']);
  assert.equal((await cancelPending(db.pool, { kind: 'test', groupKey: 'run-2' })).sort(), [
    'r',
    's',
    't',
    'u',
  ]);
  assert.equal(await requeue(db.pool, ['t', 'missing']), ['t']);
  assert.equal(
    (await claimFor(db, 'o', 5)).map((w) => w.id),
    ['t'],
  );
});

test.run();
