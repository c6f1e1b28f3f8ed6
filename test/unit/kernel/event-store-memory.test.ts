/**
 * The in-memory event store (src/event-store/memory.ts) against the contract the PostgreSQL and
 * EventStoreDB adapters pass, then what it keeps of PostgreSQL's rules beyond the contract (the
 * PostgreSQL run's own suites in test/integration/kernel/event-store-postgres.test.ts). No database.
 */
import { randomUUID } from 'node:crypto';
import { firstValueFrom, take, toArray } from 'rxjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IdempotencyConflictError } from '../../../src/event-store/errors.ts';
import { MemoryEventStore } from '../../../src/event-store/memory.ts';
import { comparePositions } from '../../../src/event-store/port.ts';
import { eventStoreContract } from '../../support/event-store-contract.ts';
import { testRegistry } from '../../support/test-streams.ts';

eventStoreContract(
  'in memory',
  async () => {
    const store = new MemoryEventStore(testRegistry);
    // Every contract case runs here as it runs on PostgreSQL: none is about PostgreSQL itself (the
    // xmin horizon is the contract's "eventually readable", which memory satisfies at once). Idempotency
    // under `any` is guaranteed, as on PostgreSQL, not EventStoreDB's best effort.
    return { store, idempotentUnderAny: 'guaranteed', dispose: () => store.close() };
  },
  { atomic: true },
);

const tested = (n: number, id?: string) => ({ id, type: 'ContractTested', data: { n } });

/** The error an append is refused with (undefined when it was not refused). */
const refusal = (append: Promise<unknown>) =>
  append.then(
    () => undefined,
    (error: unknown) => error,
  );

const memory = suite<{ store: MemoryEventStore }>('in-memory event store: beyond the contract');
memory.before.each((ctx) => {
  ctx.store = new MemoryEventStore(testRegistry);
});
memory.after.each(async (ctx) => {
  await ctx.store.close();
});

memory('ids used before, but not as this batch: the error names the ids already there', async ({ store }) => {
  const [old, fresh] = [randomUUID(), randomUUID()];
  await store.append('reused-first', [tested(1, old)]);
  const elsewhere = await refusal(store.append('reused-second', [tested(1, old)]));
  assert.instance(elsewhere, IdempotencyConflictError);
  assert.equal((elsewhere as IdempotencyConflictError).eventIds, [old]);
  const part = await refusal(store.append('reused-first', [tested(1, old), tested(2, fresh)]));
  assert.instance(part, IdempotencyConflictError);
  assert.equal((part as IdempotencyConflictError).eventIds, [old]);
  assert.is((await store.readStream('reused-first')).length, 1);
  assert.is((await store.readStream('reused-second')).length, 0);
});

memory('ids are uuids, compared and returned in lower case as PostgreSQL prints them', async ({ store }) => {
  const id = randomUUID();
  const first = await store.append('ids', [tested(1, id.toUpperCase())]);
  const again = await store.append('ids', [tested(1, id)], { expectedRevision: 'no_stream' });
  assert.is(comparePositions(again.position, first.position), 0);
  assert.equal(
    (await store.readStream('ids')).map((e) => e.id),
    [id],
  );
  assert.match(String(await refusal(store.append('ids', [tested(2, 'not-a-uuid')]))), /uuid/);
  assert.is((await store.readStream('ids')).length, 1);
});

memory('appendToStreams commits its parts together: one commit, positions in order', async ({ store }) => {
  const outcomes = await store.appendToStreams([
    { stream: 'batch-a', events: [tested(1), tested(2)] },
    { stream: 'batch-b', events: [tested(3)] },
  ]);
  const [a, b] = outcomes.map((o) => (o.ok ? o.result.position : undefined));
  assert.is(a!.commit, b!.commit);
  assert.ok(comparePositions(a!, b!) < 0);
  const next = await store.append('batch-a', [tested(4)]);
  assert.ok(next.position.commit > b!.commit);
});

memory(
  'data is stored as JSON: what a reader gets is what JSON carries, and nobody can change it',
  async ({ store }) => {
    const data = { n: 1, note: 'kept' };
    await store.append('json', [
      { type: 'ContractTested', data, metadata: { actor: 'me', gone: undefined } },
    ]);
    data.note = 'changed after the append';
    const [read] = await store.readStream('json');
    assert.equal(read!.data, { n: 1, note: 'kept' });
    assert.equal(read!.metadata, { actor: 'me', schemaVersion: 1 });
    (read!.data as { note: string }).note = 'changed by a reader';
    assert.equal((await store.readStream('json'))[0]!.data, { n: 1, note: 'kept' });
  },
);

memory(
  'readAll keeps the types asked for; events are handed to subscribers after the append returns',
  async ({ store }) => {
    await store.append('types', [tested(1)]);
    await store.append('types-other', [{ type: 'TestNoiseHappened', data: { note: 'x' } }]);
    assert.equal(
      (await store.readAll({ types: ['TestNoiseHappened'] })).map((e) => e.stream),
      ['types-other'],
    );
    const seen: number[] = [];
    const sub = store
      .subscribeAll(await store.head())
      .subscribe((e) => seen.push((e.data as { n: number }).n));
    await store.append('types', [tested(2)]);
    assert.equal(seen, [], 'delivered inside the append');
    await new Promise((r) => setImmediate(r));
    assert.equal(seen, [2]);
    sub.unsubscribe();
  },
);

memory('close ends live subscriptions', async ({ store }) => {
  const events = firstValueFrom(store.subscribeAll().pipe(take(5), toArray()));
  await store.append('closing', [tested(1)]);
  await new Promise((r) => setImmediate(r));
  await store.close();
  assert.equal(
    (await events).map((e) => (e.data as { n: number }).n),
    [1],
  );
});

memory.run();
