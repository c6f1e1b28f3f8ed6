import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import { IdempotencyConflictError, WrongExpectedRevisionError } from '../../src/event-store/errors.ts';
import type { EventStore, StreamAppend } from '../../src/event-store/port.ts';
import { type ContractTest, ev, stream } from './event-store-contract-suite.ts';

/** The events' `n` of a stream, in order. */
const ns = async (store: EventStore, s: string) =>
  (await store.readStream(s)).map((e) => (e.data as { n: number }).n);

/** What `appendAtomically` raised (it must raise). */
async function refused(store: EventStore, appends: StreamAppend[]): Promise<Error> {
  try {
    await store.appendAtomically!(appends);
  } catch (error) {
    return error as Error;
  }
  throw new Error('appendAtomically succeeded where it must not');
}

/** Appends that land together or not at all, for the stores that offer them (the port's `appendAtomically`). */
export function atomicAppendContract(test: ContractTest): void {
  test('appendAtomically: every part lands, under one commit, each at its next revision', async ({
    store,
  }) => {
    const [a, b] = [stream(), stream()];
    await store.append(b, [ev(1)]);
    const result = await store.appendAtomically!([
      { stream: a, events: [ev(10), ev(11)], expectedRevision: 'no_stream' },
      { stream: b, events: [ev(20)], expectedRevision: 0n },
    ]);
    assert.equal(result.revisions, [1n, 1n]);
    assert.equal(await ns(store, a), [10, 11]);
    assert.equal(await ns(store, b), [1, 20]);
    const written = [...(await store.readStream(a)), ...(await store.readStream(b)).slice(1)];
    assert.is(new Set(written.map((e) => e.position.commit)).size, 1, 'one commit');
    const last = written.reduce((x, e) => (e.position.prepare > x.position.prepare ? e : x));
    assert.equal(result.position, last.position);
  });

  test('appendAtomically: one part that does not hold, and no part is written', async ({ store }) => {
    const [a, b, c] = [stream(), stream(), stream()];
    await store.append(b, [ev(1)]);
    const error = await refused(store, [
      { stream: a, events: [ev(10)], expectedRevision: 'no_stream' },
      { stream: b, events: [ev(20)], expectedRevision: 'no_stream' },
      { stream: c, events: [ev(30)] },
    ]);
    assert.instance(error, WrongExpectedRevisionError);
    assert.is((error as WrongExpectedRevisionError).stream, b);
    assert.is((error as WrongExpectedRevisionError).actual, 0n);
    assert.equal(await ns(store, a), []);
    assert.equal(await ns(store, b), [1]);
    assert.equal(await ns(store, c), []);
  });

  test('appendAtomically: a part without events is a condition on its stream, never written', async ({
    store,
  }) => {
    const [a, guard] = [stream(), stream()];
    await store.append(guard, [ev(1), ev(2)]);
    const held = await store.appendAtomically!([
      { stream: a, events: [ev(10)], expectedRevision: 'no_stream' },
      { stream: guard, events: [], expectedRevision: 1n },
    ]);
    assert.equal(held.revisions, [0n, 1n]);
    assert.equal(await ns(store, guard), [1, 2]);
    await store.append(guard, [ev(3)]);
    const error = await refused(store, [
      { stream: a, events: [ev(11)], expectedRevision: 0n },
      { stream: guard, events: [], expectedRevision: 1n },
    ]);
    assert.instance(error, WrongExpectedRevisionError);
    assert.is((error as WrongExpectedRevisionError).stream, guard);
    assert.is((error as WrongExpectedRevisionError).actual, 2n);
    assert.equal(await ns(store, a), [10], 'the other part is not written');
    const missing = await refused(store, [
      { stream: a, events: [ev(12)], expectedRevision: 0n },
      { stream: stream(), events: [], expectedRevision: 'exists' },
    ]);
    assert.is((missing as WrongExpectedRevisionError).actual, 'no_stream');
  });

  test('appendAtomically: an event id written before refuses the whole append', async ({ store }) => {
    const [a, b] = [stream(), stream()];
    const id = randomUUID();
    await store.append(b, [ev(1, id)]);
    const error = await refused(store, [
      { stream: a, events: [ev(10)], expectedRevision: 'no_stream' },
      { stream: b, events: [ev(2, id)] },
    ]);
    assert.instance(error, IdempotencyConflictError);
    assert.equal(await ns(store, a), []);
    assert.equal(await ns(store, b), [1]);
  });

  test('appendAtomically: two racing over one stream at one revision, exactly one lands', async ({
    store,
  }) => {
    const [shared, x, y] = [stream(), stream(), stream()];
    await store.append(shared, [ev(0)]);
    const race = await Promise.allSettled(
      [x, y].map((own, i) =>
        store.appendAtomically!([
          { stream: shared, events: [ev(i + 1)], expectedRevision: 0n },
          { stream: own, events: [ev(i + 10)], expectedRevision: 'no_stream' },
        ]),
      ),
    );
    assert.equal(race.map((r) => r.status).sort(), ['fulfilled', 'rejected']);
    const lost = race.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.instance(lost.reason, WrongExpectedRevisionError);
    const won = race.findIndex((r) => r.status === 'fulfilled');
    assert.equal(await ns(store, shared), [0, won + 1]);
    assert.equal(await ns(store, won === 0 ? y : x), [], "the loser's other part is not written");
  });

  test('appendAtomically: a stream named twice, no part, or a condition on no stream, is refused before anything is written', async ({
    store,
  }) => {
    const a = stream();
    const twice = await refused(store, [
      { stream: a, events: [ev(1)] },
      { stream: a, events: [ev(2)] },
    ]);
    assert.match(twice.message, /each stream once/);
    assert.match((await refused(store, [])).message, /at least one part/);
    const unlockable = await refused(store, [
      { stream: a, events: [ev(1)] },
      { stream: stream(), events: [], expectedRevision: 'no_stream' },
    ]);
    assert.match(unlockable.message, /needs it to exist/);
    assert.equal(await ns(store, a), []);
  });

  test('appendAtomically: a subscriber sees every event of it', async ({ store }) => {
    const [a, b] = [stream(), stream()];
    const from = await store.head();
    await store.appendAtomically!([
      { stream: a, events: [ev(1)] },
      { stream: b, events: [ev(2), ev(3)] },
    ]);
    const seen = (await store.readAll({ from, limit: 100 })).filter((e) => e.stream === a || e.stream === b);
    const n = (e: { data: unknown }) => (e.data as { n: number }).n;
    // The parts' order in the log is the store's (PostgreSQL writes them in stream order); each
    // stream's events keep theirs.
    assert.equal(seen.map(n).sort(), [1, 2, 3]);
    assert.equal(seen.filter((e) => e.stream === b).map(n), [2, 3]);
  });
}

/** For a store without it: the capability is absent, not a promise it cannot keep. */
export function noAtomicAppendContract(test: ContractTest): void {
  test('appendAtomically: absent (the client has no multi-stream append)', ({ store }) => {
    assert.is(store.appendAtomically, undefined);
  });
}
