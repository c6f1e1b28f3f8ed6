import * as assert from 'uvu/assert';
import type { EventStore, RecordedEvent } from '../../src/event-store/port.ts';
import { comparePositions } from '../../src/event-store/port.ts';
import { type ContractTest, ev, stream } from './event-store-contract-suite.ts';

/** Reads: the last event of streams, one stream, several streams, and the global log. */
export function readContract(test: ContractTest): void {
  test('readLastEvents: the last event of each stream; streams without events are left out', async ({
    store,
  }) => {
    const [a, b, missing] = [stream(), stream(), stream()];
    await store.append(a, [ev(1), ev(2), ev(3)]);
    await store.append(b, [ev(7)]);
    const lasts = await store.readLastEvents([a, b, missing, a]);
    assert.equal([...lasts.keys()].sort(), [a, b].sort());
    assert.is((lasts.get(a)!.data as { n: number }).n, 3);
    assert.is(lasts.get(a)!.revision, 2n);
    assert.is((lasts.get(b)!.data as { n: number }).n, 7);
    assert.is((await store.readLastEvents([])).size, 0);
  });

  test('stream reads: forwards, backwards, from and limit; a missing stream is empty', async ({ store }) => {
    const s = stream();
    await store.append(
      s,
      [1, 2, 3, 4, 5].map((n) => ev(n)),
    );
    const ns = (es: RecordedEvent[]) => es.map((e) => (e.data as { n: number }).n);
    assert.equal(ns(await store.readStream(s)), [1, 2, 3, 4, 5]);
    assert.equal(ns(await store.readStream(s, { direction: 'backwards' })), [5, 4, 3, 2, 1]);
    assert.equal(ns(await store.readStream(s, { from: 2n, limit: 2 })), [3, 4]);
    assert.equal(ns(await store.readStream(s, { from: 1n, direction: 'backwards' })), [2, 1]);
    const e = (await store.readStream(s))[0]!;
    assert.is(e.stream, s);
    assert.is(e.revision, 0n);
    assert.is(e.type, 'ContractTested');
    assert.instance(e.recordedAt, Date);
    assert.equal(await store.readStream(stream()), []);
  });

  test('readStreams: each stream from its own revision, in order; a missing one is empty', async ({
    store,
  }) => {
    const [a, b, missing] = [stream(), stream(), stream()];
    await store.append(a, [ev(1), ev(2), ev(3)]);
    await store.append(b, [ev(7), ev(8)]);
    await store.append(a, [ev(4)]);
    const read = await store.readStreams([{ stream: a, from: 1n }, { stream: missing }, { stream: b }]);
    const ns = (es: RecordedEvent[] | undefined) => es?.map((e) => (e.data as { n: number }).n);
    assert.equal([...read.keys()], [a, missing, b]);
    assert.equal(ns(read.get(a)), [2, 3, 4]);
    assert.equal(
      read.get(a)!.map((e) => e.revision),
      [1n, 2n, 3n],
    );
    assert.equal(ns(read.get(b)), [7, 8]);
    assert.equal(read.get(missing), []);
    assert.equal(ns((await store.readStreams([{ stream: a, from: 4n }])).get(a)), []);
    assert.is((await store.readStreams([])).size, 0);
  });

  test('global reads are in append order, exclusive of `from`, paged by limit', async ({ store }) => {
    const start = await store.head();
    const a = stream();
    const b = stream();
    await store.append(a, [ev(1)]);
    await store.append(b, [ev(2)]);
    await store.append(a, [ev(3)]);
    const all = await waitForAll(store, start, 3);
    assert.equal(
      all.map((e) => [e.stream, (e.data as { n: number }).n]),
      [
        [a, 1],
        [b, 2],
        [a, 3],
      ],
    );
    const second = await store.readAll({ from: all[0]!.position, limit: 1 });
    assert.is(second.length, 1);
    assert.is(second[0]!.id, all[1]!.id);
    assert.ok(comparePositions(all[2]!.position, await store.head()) <= 0);
  });
}

async function waitForAll(store: EventStore, from: RecordedEvent['position'], count: number) {
  for (let i = 0; i < 100; i++) {
    const all = await store.readAll({ from, limit: 100 });
    const mine = all.filter((e) => e.type === 'ContractTested');
    if (mine.length >= count) return mine.slice(0, count);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('events did not become readable');
}
