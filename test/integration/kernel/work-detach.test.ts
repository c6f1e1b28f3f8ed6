import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../../src/logger.ts';
import { claim, enqueue, renew, settleAndClaim, settleMany } from '../../../src/work/queue.ts';
import { Worker } from '../../../src/work/worker.ts';
import { eventually } from '../../support/eventually.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';

/*
 * Detached work items (migration 0017): an item whose limited part is over (a run's row after its call)
 * keeps its lease but stops counting against its group's limit, so the group's next item is claimed
 * while the first one finishes (records its result).
 */
const test = suite<{ db: TestDatabase }>('work queue: detached items');
test.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
});
test.after.each(async ({ db }) => db.drop());

const group = { key: 'run-1', limit: 1 };
const item = (id: string) => ({
  id,
  kind: 'test',
  organizationId: 'org-1',
  groupKey: group.key,
  groupLimit: group.limit,
  payload: { id },
});
const request = (owner: string, leaseMs = 60_000) => ({
  kind: 'test',
  owner,
  limit: 5,
  leaseMs,
  now: new Date(),
});
const leased = async (db: TestDatabase) =>
  (
    await db.pool.query<{ id: string }>("SELECT id FROM work_items WHERE status = 'leased' ORDER BY id")
  ).rows.map((r) => r.id);

test('a detached item frees its group slot, keeps its lease, and is settled by its holder', async ({
  db,
}) => {
  await enqueue(db.pool, [item('i0'), item('i1'), item('i2')]);
  assert.equal(
    (await claim(db.pool, request('a'))).map((i) => i.id),
    ['i0'],
  );
  // The group is full: nothing more without a detach.
  assert.equal(await settleAndClaim(db.pool, { ...request('a'), settlements: [] }), []);
  const next = await settleAndClaim(db.pool, { ...request('a'), settlements: [], detached: ['i0'] });
  assert.equal(
    next.map((i) => i.id),
    ['i1'],
  );
  assert.equal(await leased(db), ['i0', 'i1']);
  // Another owner cannot detach what it does not hold: the group stays full.
  assert.equal(await settleAndClaim(db.pool, { ...request('b'), settlements: [], detached: ['i1'] }), []);
  assert.equal([...(await renew(db.pool, 'a', ['i0', 'i1'], 60_000))].sort(), ['i0', 'i1']);
  assert.is(await settleMany(db.pool, 'a', [{ id: 'i0', outcome: { status: 'done' } }]), 1);
  assert.equal(await leased(db), ['i1']);
});

test('a detached item whose lease runs out is claimed again and counts again', async ({ db }) => {
  await enqueue(db.pool, [item('i0'), item('i1'), item('i2')]);
  await claim(db.pool, request('a', 1));
  await settleAndClaim(db.pool, { ...request('a', 1), settlements: [], detached: ['i0'], limit: 0 });
  await new Promise((r) => setTimeout(r, 20));
  // Both leases ran out: the holder is gone. The new claim takes one item (the limit), not two.
  const again = await claim(db.pool, request('b'));
  assert.equal(
    again.map((i) => i.id),
    ['i0'],
  );
  assert.equal(await settleAndClaim(db.pool, { ...request('b'), settlements: [] }), []);
});

test('a worker whose handler detaches calls the next items of a full group while the first still run', async ({
  db,
}) => {
  await enqueue(
    db.pool,
    ['i0', 'i1', 'i2', 'i3'].map((id) => ({ ...item(id), groupLimit: 2 })),
  );
  let limited = 0;
  let mostLimited = 0;
  const called: string[] = [];
  let open!: () => void;
  const gate = new Promise<void>((r) => {
    open = r;
  });
  const worker = new Worker(
    db.pool,
    {
      kind: 'test',
      concurrency: 8,
      pollMs: 20,
      async handle(work, _signal, detach) {
        limited++;
        mostLimited = Math.max(mostLimited, limited);
        called.push(work.id);
        await new Promise((r) => setImmediate(r));
        limited--;
        detach?.();
        await gate; // what is left of the item (recording its result) waits
        return { status: 'done' };
      },
    },
    { clock: () => new Date(), logger: createLogger('silent') },
  );
  worker.start();
  try {
    // Without the detach, a group limit of 2 would stop at two items until the gate opens.
    await eventually('every item called while none has finished', () => called.length === 4);
    assert.ok(mostLimited <= 2, `${mostLimited} in their limited part at once`);
    assert.equal(await leased(db), ['i0', 'i1', 'i2', 'i3']);
    open();
    await eventually(
      'every item settled',
      async () => (await db.pool.query("SELECT 1 FROM work_items WHERE status = 'done'")).rowCount === 4,
    );
  } finally {
    open();
    await worker.stop();
  }
});

test.run();
