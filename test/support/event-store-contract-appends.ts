import { randomUUID } from 'node:crypto';
import * as assert from 'uvu/assert';
import { InvalidEventError, WrongExpectedRevisionError } from '../../src/event-store/errors.ts';
import type { StreamAppendOutcome } from '../../src/event-store/port.ts';
import { comparePositions } from '../../src/event-store/port.ts';
import { type ContractTest, ev, stream } from './event-store-contract-suite.ts';

/** Appends: expected revisions, idempotent re-appends, schema checks, and batches over several streams. */
export function appendContract(test: ContractTest): void {
  test('no_stream: the first append succeeds, a second fails with the actual revision', async ({ store }) => {
    const s = stream();
    const first = await store.append(s, [ev(1), ev(2)], { expectedRevision: 'no_stream' });
    assert.is(first.nextExpectedRevision, 1n);
    try {
      await store.append(s, [ev(3)], { expectedRevision: 'no_stream' });
      assert.unreachable('second no_stream append succeeded');
    } catch (error) {
      assert.instance(error, WrongExpectedRevisionError);
      const e = error as WrongExpectedRevisionError;
      assert.is(e.stream, s);
      assert.is(e.expected, 'no_stream');
      assert.is(e.actual, 1n);
    }
  });

  test('exists: fails on a missing stream, succeeds on one that has events', async ({ store }) => {
    const s = stream();
    try {
      await store.append(s, [ev(1)], { expectedRevision: 'exists' });
      assert.unreachable('exists on a missing stream succeeded');
    } catch (error) {
      assert.instance(error, WrongExpectedRevisionError);
      assert.is((error as WrongExpectedRevisionError).actual, 'no_stream');
    }
    await store.append(s, [ev(1)]);
    const r = await store.append(s, [ev(2)], { expectedRevision: 'exists' });
    assert.is(r.nextExpectedRevision, 1n);
  });

  test('an exact revision: matches once, a stale one fails', async ({ store }) => {
    const s = stream();
    const a = await store.append(s, [ev(1)], { expectedRevision: 'no_stream' });
    const b = await store.append(s, [ev(2)], { expectedRevision: a.nextExpectedRevision });
    assert.is(b.nextExpectedRevision, 1n);
    try {
      await store.append(s, [ev(3)], { expectedRevision: a.nextExpectedRevision });
      assert.unreachable('stale revision accepted');
    } catch (error) {
      assert.instance(error, WrongExpectedRevisionError);
      assert.is((error as WrongExpectedRevisionError).expected, 0n);
      assert.is((error as WrongExpectedRevisionError).actual, 1n);
    }
  });

  test('any: appends whatever the stream holds', async ({ store }) => {
    const s = stream();
    await store.append(s, [ev(1)], { expectedRevision: 'any' });
    const r = await store.append(s, [ev(2), ev(3)], { expectedRevision: 'any' });
    assert.is(r.nextExpectedRevision, 2n);
    const read = await store.readStream(s);
    assert.equal(
      read.map((e) => (e.data as { n: number }).n),
      [1, 2, 3],
    );
  });

  test('re-appending the same event ids returns the first result and writes nothing twice', async (ctx) => {
    const { store } = ctx;
    const s = stream();
    const ids = [randomUUID(), randomUUID()];
    const first = await store.append(s, [ev(1, ids[0]), ev(2, ids[1])], { expectedRevision: 'no_stream' });
    const again = await store.append(s, [ev(1, ids[0]), ev(2, ids[1])], { expectedRevision: 'no_stream' });
    assert.is(again.nextExpectedRevision, first.nextExpectedRevision);
    assert.is(comparePositions(again.position, first.position), 0);
    const read = await store.readStream(s);
    assert.is(read.length, 2);
    assert.equal(
      read.map((e) => e.id),
      ids,
    );
  });

  test('re-appending under expected revision any', async (ctx) => {
    const { store } = ctx;
    const s = stream();
    const id = randomUUID();
    await store.append(s, [ev(1, id)], { expectedRevision: 'any' });
    await store.append(s, [ev(1, id)], { expectedRevision: 'any' });
    const read = await store.readStream(s);
    if (ctx.backend.idempotentUnderAny === 'best-effort') {
      // EventStoreDB documents idempotency under `any` as best effort (it checks recent writes only);
      // our adapter does not promise more than the server does.
      assert.ok(read.length >= 1 && read.length <= 2);
    } else {
      assert.is(read.length, 1);
    }
  });

  test('an event failing its schema is refused and nothing is written', async ({ store }) => {
    const s = stream();
    try {
      await store.append(s, [ev(1), { type: 'ContractTested', data: { n: 'not a number' } }]);
      assert.unreachable('invalid event accepted');
    } catch (error) {
      assert.instance(error, InvalidEventError);
      assert.match((error as InvalidEventError).message, /n/);
    }
    try {
      await store.append(s, [{ type: 'NeverRegistered', data: {} }]);
      assert.unreachable('unregistered type accepted');
    } catch (error) {
      assert.instance(error, InvalidEventError);
    }
    assert.is((await store.readStream(s)).length, 0);
  });

  test('appendToStreams: each stream checked alone; a failed expectation fails only its own part', async ({
    store,
  }) => {
    const [a, b, c, d] = [stream(), stream(), stream(), stream()];
    await store.append(b, [ev(1)]);
    const outcomes = await store.appendToStreams([
      { stream: a, events: [ev(10), ev(11)], expectedRevision: 'no_stream' },
      { stream: b, events: [ev(20)], expectedRevision: 'no_stream' },
      { stream: c, events: [ev(30)] },
      { stream: d, events: [{ type: 'ContractTested', data: { n: 'not a number' } }] },
    ]);
    assert.equal(
      outcomes.map((o) => o.ok),
      [true, false, true, false],
    );
    const [okA, failedB, okC, invalidD] = outcomes as [
      StreamAppendOutcome,
      StreamAppendOutcome,
      StreamAppendOutcome,
      StreamAppendOutcome,
    ];
    assert.is(okA.ok && okA.result.nextExpectedRevision, 1n);
    assert.is(okC.ok && okC.result.nextExpectedRevision, 0n);
    assert.instance(!failedB.ok && failedB.error, WrongExpectedRevisionError);
    assert.is(!failedB.ok && (failedB.error as WrongExpectedRevisionError).actual, 0n);
    assert.instance(!invalidD.ok && invalidD.error, InvalidEventError);
    const ns = async (s: string) => (await store.readStream(s)).map((e) => (e.data as { n: number }).n);
    assert.equal(await ns(a), [10, 11]);
    assert.equal(await ns(b), [1]);
    assert.equal(await ns(c), [30]);
    assert.equal(await ns(d), []);
  });

  test('appendToStreams: a re-sent batch (same event ids) writes nothing twice', async ({ store }) => {
    const [a, b] = [stream(), stream()];
    const batch = [
      { stream: a, events: [ev(1, randomUUID())], expectedRevision: 'no_stream' as const },
      { stream: b, events: [ev(2, randomUUID())], expectedRevision: 'no_stream' as const },
    ];
    const first = await store.appendToStreams(batch);
    const again = await store.appendToStreams(batch);
    assert.equal(
      again.map((o) => o.ok),
      [true, true],
    );
    first.forEach((o, i) => {
      const r = again[i]!;
      assert.ok(o.ok && r.ok && o.result.nextExpectedRevision === r.result.nextExpectedRevision);
    });
    assert.is((await store.readStream(a)).length, 1);
    assert.is((await store.readStream(b)).length, 1);
  });
}
