import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MemoryEventStore } from '../../../src/event-store/memory.ts';
import type { EventStore } from '../../../src/event-store/port.ts';
import { decideAcrossStreams } from '../../../src/multi-stream-command.ts';
import { testRegistry } from '../../support/test-streams.ts';

/* decideAcrossStreams (src/multi-stream-command.ts): one decision over several streams, appended as one or, without atomic appends, part by part. */
const test = suite('a decision across streams');

type Tested = { type: 'ContractTested'; data: { n: number } };
/** A stream's state: the numbers it holds. */
const numbers = { initialState: (): number[] => [], evolve: (s: number[], e: Tested) => [...s, e.data.n] };
const tested = (n: number): Tested => ({ type: 'ContractTested', data: { n } });
const names = () => [`a-${randomUUID()}`, `b-${randomUUID()}`, `guard-${randomUUID()}`] as const;
/** The guard stream, there before the decision (a condition holds a stream that exists). */
const guarded = async (store: EventStore, guard: string) => {
  await store.append(guard, [tested(0)]);
};
const ns = async (store: EventStore, s: string) =>
  (await store.readStream(s)).map((e) => (e.data as { n: number }).n);

/** The memory store without its atomic append: what the EventStoreDB adapter offers. */
function withoutAtomic(store: MemoryEventStore): EventStore {
  return new Proxy(store, {
    get: (target, key) =>
      key === 'appendAtomically'
        ? undefined
        : ((v) => (typeof v === 'function' ? v.bind(target) : v))(Reflect.get(target, key)),
  });
}

/**
 * Moves a's first number to b, marking a with -1, while the guard holds still. Decided from what the
 * streams hold, so that taken again after a part landed it makes only the rest.
 */
const move = (store: EventStore, [a, b, guard]: readonly string[], seen: number[][] = []) =>
  decideAcrossStreams({
    store,
    loads: [
      { stream: a!, definition: numbers },
      { stream: b!, definition: numbers },
      { stream: guard!, definition: numbers },
    ] as const,
    decide: ([from, to, g]) => {
      seen.push(g);
      const value = from[0];
      if (value === undefined) throw new Error('nothing to move');
      const parts = [from.includes(-1) ? [] : [tested(-1)], to.includes(value) ? [] : [tested(value)], []];
      return { parts, result: parts.some((p) => p.length > 0) ? `moving ${value}` : 'moved' };
    },
    metadata: { actor: 'test' },
  });

test('atomic: every part lands under one commit, with the metadata given', async () => {
  const store = new MemoryEventStore(testRegistry);
  const streams = names();
  await guarded(store, streams[2]);
  await store.append(streams[0], [tested(7)]);
  const { result, position } = await move(store, streams);
  assert.is(result, 'moving 7');
  assert.equal(await ns(store, streams[0]), [7, -1]);
  assert.equal(await ns(store, streams[1]), [7]);
  assert.equal(await ns(store, streams[2]), [0], 'the condition is not written');
  const [moved] = await store.readStream(streams[1]);
  assert.equal(moved!.metadata.actor, 'test');
  assert.equal(position, moved!.position);
  assert.is((await move(store, streams)).result, 'moved', 'decided again: nothing to append');
});

test('a write to a condition between the load and the append: decided again, on what it wrote', async () => {
  const store = new MemoryEventStore(testRegistry);
  const streams = names();
  await guarded(store, streams[2]);
  await store.append(streams[0], [tested(7)]);
  const append = store.appendAtomically.bind(store);
  let raced = false;
  store.appendAtomically = async (appends) => {
    if (!raced) {
      raced = true;
      await store.append(streams[2], [tested(99)]);
    }
    return append(appends);
  };
  const seen: number[][] = [];
  await move(store, streams, seen);
  assert.equal(seen, [[0], [0, 99]], 'the second decision saw the guard move');
  assert.equal(await ns(store, streams[1]), [7]);
});

test('a refusal appends nothing', async () => {
  const store = new MemoryEventStore(testRegistry);
  const streams = names();
  try {
    await move(store, streams);
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, /nothing to move/);
  }
  assert.is((await store.readAll()).length, 0);
});

test('without atomic appends: part by part, in the order of the loads, decided again after each', async () => {
  const memory = new MemoryEventStore(testRegistry);
  const store = withoutAtomic(memory);
  assert.is(store.appendAtomically, undefined);
  const streams = names();
  await guarded(store, streams[2]);
  await store.append(streams[0], [tested(7)]);
  const seen: number[][] = [];
  const { result, position } = await move(store, streams, seen);
  assert.is(result, 'moved', 'the last decision saw both parts landed');
  assert.equal(await ns(store, streams[0]), [7, -1]);
  assert.equal(await ns(store, streams[1]), [7]);
  assert.is(seen.length, 3, 'decided before each part and once after the last');
  const [arrived] = await store.readStream(streams[1]);
  const [marked] = await store.readStream(streams[0], { from: 1n });
  assert.ok(marked!.position.commit < arrived!.position.commit, 'a first, then b: two commits');
  assert.equal(position, arrived!.position);
});

test('without atomic appends: a decision answered as a repeat of an earlier append ends with an error', async () => {
  const store = withoutAtomic(new MemoryEventStore(testRegistry));
  const [a] = names();
  const id = randomUUID();
  await store.append(a, [{ id, ...tested(1) }]);
  let decisions = 0;
  try {
    await decideAcrossStreams({
      store,
      loads: [{ stream: a, definition: numbers }] as const,
      // Decides the same event (its id written before) whatever it reads: a decider that never sees
      // its own write.
      decide: () => {
        decisions++;
        return { parts: [[{ id, ...tested(1) }]], result: undefined };
      },
      metadata: {},
    });
    assert.unreachable('it ended without an error');
  } catch (error) {
    assert.match((error as Error).message, /appended before/);
  }
  assert.is(decisions, 1);
});

test.run();
