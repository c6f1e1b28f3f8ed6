import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BudgetWaitAborted, ByteBudget, type Reservation } from '../../../src/byte-budget.ts';

const test = suite('byte budget');

const settled = () => new Promise((resolve) => setImmediate(resolve));

/** An acquisition whose grant the test can see without awaiting it. */
function pending(budget: ByteBudget, group: string, bytes: number, signal?: AbortSignal) {
  const state: { reservation?: Reservation; error?: unknown } = {};
  budget.acquire(group, bytes, signal).then(
    (r) => {
      state.reservation = r;
    },
    (e) => {
      state.error = e;
    },
  );
  return state;
}

test('grants what fits at once; the rest waits until enough is given back', async () => {
  const budget = new ByteBudget({ total: 100, perGroup: 100 });
  const a = await budget.acquire('a', 60);
  const b = pending(budget, 'b', 60);
  await settled();
  assert.is(b.reservation, undefined);
  assert.is(budget.inUse, 60);
  a.release();
  a.release();
  await settled();
  assert.is(b.reservation?.bytes, 60);
  assert.is(budget.inUse, 60);
  assert.is(budget.peak, 60);
  assert.is(budget.waits, 1);
});

test("a group at its share waits; another group's acquisitions go past it", async () => {
  const budget = new ByteBudget({ total: 100, perGroup: 50 });
  const a1 = await budget.acquire('a', 40);
  const a2 = pending(budget, 'a', 40);
  const b = pending(budget, 'b', 40);
  await settled();
  assert.is(a2.reservation, undefined);
  assert.is(b.reservation?.bytes, 40);
  a1.release();
  await settled();
  assert.is(a2.reservation?.bytes, 40);
  assert.ok(budget.peakPerGroup <= 50);
  assert.ok(budget.peak <= 100);
});

test('the first waiter that does not fit the total stops the line: small ones do not starve it', async () => {
  const budget = new ByteBudget({ total: 100, perGroup: 100 });
  const held = await budget.acquire('a', 50);
  const large = pending(budget, 'b', 80);
  const small = pending(budget, 'c', 10);
  await settled();
  assert.is(large.reservation, undefined);
  assert.is(small.reservation, undefined, 'behind the large one although it would fit');
  held.release();
  await settled();
  assert.is(large.reservation?.bytes, 80);
  assert.is(small.reservation?.bytes, 10);
});

test('resize: less gives back and lets waiters in; more is counted at once; release gives all', async () => {
  const budget = new ByteBudget({ total: 100, perGroup: 100 });
  const a = await budget.acquire('a', 90);
  const b = pending(budget, 'b', 50);
  a.resize(30);
  await settled();
  assert.is(b.reservation?.bytes, 50);
  assert.is(budget.inUse, 80);
  a.resize(70);
  assert.is(budget.inUse, 120, 'memory already taken is counted, over the total');
  assert.is(budget.peak, 120);
  a.release();
  b.reservation?.release();
  assert.is(budget.inUse, 0);
  a.resize(10);
  assert.is(budget.inUse, 0, 'a released reservation stays released');
});

test('a wait ends when its signal aborts; the waiters behind it are served', async () => {
  const budget = new ByteBudget({ total: 100, perGroup: 100 });
  const held = await budget.acquire('a', 30);
  const giveUp = new AbortController();
  const first = pending(budget, 'b', 90, giveUp.signal);
  const second = pending(budget, 'c', 60);
  await settled();
  assert.is(second.reservation, undefined);
  giveUp.abort();
  await settled();
  assert.instance(first.error, BudgetWaitAborted);
  assert.is(second.reservation?.bytes, 60);
  assert.is(budget.queued, 0);
  held.release();
  const late = pending(budget, 'd', 1, AbortSignal.abort());
  await settled();
  assert.instance(late.error, BudgetWaitAborted);
});

test('an acquisition is at most a group share: one request never waits forever', async () => {
  const budget = new ByteBudget({ total: 100, perGroup: 40 });
  const r = await budget.acquire('a', 1_000);
  assert.is(r.bytes, 40);
});

test.run();
