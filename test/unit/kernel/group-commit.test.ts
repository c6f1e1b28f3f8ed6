import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GroupCommit } from '../../../src/group-commit.ts';

const test = suite('group commit');

/** A writer whose batches finish only when the test says so. */
function gatedWriter() {
  const batches: number[][] = [];
  const gates: (() => void)[] = [];
  const write = async (items: number[]) => {
    batches.push(items);
    await new Promise<void>((resolve) => gates.push(resolve));
    return items.map((n) => n * 10);
  };
  return { batches, write, openNext: () => gates.shift()?.() };
}

const tick = () => new Promise((r) => setImmediate(r));

test('a lone write leaves at once; what arrives meanwhile goes out together, each answered alone', async () => {
  const w = gatedWriter();
  const group = new GroupCommit(w.write, { maxBatch: 3, maxInFlight: 1 });
  const first = group.submit(1);
  await tick();
  assert.equal(w.batches, [[1]]);
  const rest = [2, 3, 4, 5, 6].map((n) => group.submit(n));
  await tick();
  assert.equal(w.batches, [[1]], 'nothing else leaves while the one batch allowed is in flight');
  w.openNext();
  assert.is(await first, 10);
  await tick();
  assert.equal(w.batches, [[1], [2, 3, 4]], 'the queue leaves as one batch of at most maxBatch');
  w.openNext();
  await tick();
  assert.equal(w.batches, [[1], [2, 3, 4], [5, 6]]);
  w.openNext();
  assert.equal(await Promise.all(rest), [20, 30, 40, 50, 60]);
});

test('up to maxInFlight batches at once', async () => {
  const w = gatedWriter();
  const group = new GroupCommit(w.write, { maxBatch: 10, maxInFlight: 2 });
  const all = [1, 2, 3, 4].map((n) => group.submit(n));
  await tick();
  assert.equal(w.batches, [[1], [2]]);
  w.openNext();
  w.openNext();
  await tick();
  assert.equal(w.batches, [[1], [2], [3, 4]]);
  w.openNext();
  assert.equal(await Promise.all(all), [10, 20, 30, 40]);
});

test('a failed batch fails its own items only; later batches still go', async () => {
  let calls = 0;
  const group = new GroupCommit(
    async (items: number[]) => {
      calls++;
      if (items.includes(2)) throw new Error('database gone');
      return items;
    },
    { maxBatch: 1, maxInFlight: 1 },
  );
  const results = await Promise.allSettled([1, 2, 3].map((n) => group.submit(n)));
  assert.equal(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  assert.match(String((results[1] as PromiseRejectedResult).reason), /database gone/);
  assert.is(calls, 3);
});

test.run();
