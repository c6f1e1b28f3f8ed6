import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HostRateLimit } from '../../../src/net/host-rate-limit.ts';

const test = suite('per-host rate limit');

/** A clock that only moves when a wait is asked for: the waits are what is checked. */
function clock() {
  const state = { now: 0, waits: [] as number[] };
  return {
    state,
    now: () => state.now,
    sleep: async (ms: number) => {
      state.waits.push(ms);
    },
  };
}

test('a burst passes at once, then requests are spaced at the rate', async () => {
  const c = clock();
  const limit = new HostRateLimit({ perSecond: 2, burst: 2, now: c.now, sleep: c.sleep });
  assert.equal([await limit.take('a.test'), await limit.take('a.test')], [0, 0]);
  // Concurrent callers queue behind each other: 500 ms, then 1000 ms.
  assert.equal(await Promise.all([limit.take('a.test'), limit.take('a.test')]), [500, 1000]);
  assert.equal(c.state.waits, [500, 1000]);
});

test('each host has its own bucket', async () => {
  const c = clock();
  const limit = new HostRateLimit({ perSecond: 1, now: c.now, sleep: c.sleep });
  assert.is(await limit.take('a.test'), 0);
  assert.is(await limit.take('b.test'), 0);
  assert.is(await limit.take('a.test'), 1000);
});

test('tokens come back with time, up to the burst', async () => {
  const c = clock();
  const limit = new HostRateLimit({ perSecond: 4, burst: 2, now: c.now, sleep: c.sleep });
  await limit.take('h');
  await limit.take('h');
  c.state.now += 10_000;
  assert.equal([await limit.take('h'), await limit.take('h'), await limit.take('h')], [0, 0, 250]);
});

test('an aborted caller does not wait', async () => {
  const c = clock();
  const limit = new HostRateLimit({ perSecond: 1, now: c.now, sleep: c.sleep });
  await limit.take('h');
  const controller = new AbortController();
  controller.abort();
  await limit.take('h', controller.signal).then(
    () => assert.unreachable('should refuse to wait'),
    (error) => assert.is((error as Error).name, 'AbortError'),
  );
  assert.equal(c.state.waits, []);
});

test.run();
