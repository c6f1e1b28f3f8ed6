import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IdempotencyConflictError } from '../../../src/event-store/errors.ts';
import { PostgresEventStore } from '../../../src/event-store/postgres.ts';
import { eventStoreContract } from '../../support/event-store-contract.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { testRegistry } from '../../support/test-streams.ts';

eventStoreContract(
  'PostgreSQL',
  async () => {
    const db = await freshDatabase();
    const store = new PostgresEventStore(db.pool, testRegistry);
    return {
      store,
      idempotentUnderAny: 'guaranteed',
      dispose: async () => {
        await store.close();
        await db.drop();
      },
    };
  },
  { atomic: true },
);

const refused = suite<{ db: TestDatabase; store: PostgresEventStore }>(
  'PostgreSQL appendToStreams: a part the server refuses',
);
refused.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.store = new PostgresEventStore(ctx.db.pool, testRegistry);
});
refused.after(async (ctx) => {
  await ctx.store.close();
  await ctx.db.drop();
});

refused('fails alone: the other parts of the batch land', async ({ store }) => {
  // jsonb cannot hold a NUL character, so the one-statement batch fails as a whole.
  const outcomes = await store.appendToStreams([
    { stream: 'refused-a', events: [{ type: 'ContractTested', data: { n: 1 } }] },
    { stream: 'refused-b', events: [{ type: 'ContractTested', data: { n: 2, note: 'a\u0000b' } }] },
    { stream: 'refused-c', events: [{ type: 'ContractTested', data: { n: 3 } }] },
  ]);
  assert.equal(
    outcomes.map((o) => o.ok),
    [true, false, true],
  );
  assert.is((await store.readStream('refused-a')).length, 1);
  assert.is((await store.readStream('refused-b')).length, 0);
  assert.is((await store.readStream('refused-c')).length, 1);
});

refused.run();

const reused = suite<{ db: TestDatabase; store: PostgresEventStore }>(
  'PostgreSQL append: event ids used before, but not as this batch',
);
reused.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.store = new PostgresEventStore(ctx.db.pool, testRegistry);
});
reused.after(async (ctx) => {
  await ctx.store.close();
  await ctx.db.drop();
});

/** The error an append is refused with (undefined when it was not refused). */
const refusal = (append: Promise<unknown>) =>
  append.then(
    () => undefined,
    (error: unknown) => error,
  );

const tested = (n: number, id: string) => ({ id, type: 'ContractTested', data: { n } });

reused('an id appended to another stream: the error names that event id', async ({ store }) => {
  const id = randomUUID();
  await store.append('reused-first', [tested(1, id)]);
  const error = await refusal(store.append('reused-second', [tested(1, id)]));
  assert.instance(error, IdempotencyConflictError);
  if (!(error instanceof IdempotencyConflictError)) return;
  assert.is(error.stream, 'reused-second');
  assert.equal(error.eventIds, [id]);
  assert.match(error.message, id);
  assert.is((await store.readStream('reused-second')).length, 0);
});

reused('part of a batch appended before: the error names the ids already there', async ({ store }) => {
  const [old, fresh] = [randomUUID(), randomUUID()];
  await store.append('reused-part', [tested(1, old)]);
  const error = await refusal(store.append('reused-part', [tested(1, old), tested(2, fresh)]));
  assert.instance(error, IdempotencyConflictError);
  if (!(error instanceof IdempotencyConflictError)) return;
  assert.equal(error.eventIds, [old]);
  assert.is((await store.readStream('reused-part')).length, 1);
});

reused.run();

const kept = suite<{ db: TestDatabase; store: PostgresEventStore }>(
  'PostgreSQL readAll: the large events this process appended',
);
kept.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.store = new PostgresEventStore(ctx.db.pool, testRegistry);
});
kept.after(async (ctx) => {
  await ctx.store.close();
  await ctx.db.drop();
});

kept(
  'come back as appended without their data read back; other stores and older ones read the table',
  async ({ db, store }) => {
    const note = 'x'.repeat(40 * 1024);
    await store.append('kept-large', [{ type: 'ContractTested', data: { n: 1, note } }]);
    await store.append('kept-small', [{ type: 'ContractTested', data: { n: 2 } }]);
    // What the table holds changes behind the store's back: a read of the table shows the change.
    await db.pool.query(
      `UPDATE events SET data = jsonb_set(data, '{note}', '"changed"') WHERE stream_name LIKE 'kept-%'`,
    );
    const other = new PostgresEventStore(db.pool, testRegistry);
    const mine = await store.readAll();
    const theirs = await other.readAll();
    assert.equal(
      mine.map((e) => e.data),
      [
        { n: 1, note },
        { n: 2, note: 'changed' },
      ],
    );
    assert.equal(
      theirs.map((e) => e.data),
      [
        { n: 1, note: 'changed' },
        { n: 2, note: 'changed' },
      ],
    );
    // All but the data is read from the table, as for any event: ids, positions, metadata, time.
    const withoutData = (events: readonly { data: unknown }[]) => events.map((e) => ({ ...e, data: null }));
    assert.equal(withoutData(mine), withoutData(theirs));
    // A bounded number of them: after enough later large appends, the first is read from the table.
    for (let i = 0; i < 40; i++)
      await store.append(`later-${i}`, [{ type: 'ContractTested', data: { n: 3, note } }]);
    const [first] = await store.readAll({ limit: 1 });
    assert.equal(first!.data, { n: 1, note: 'changed' });
    await other.close();
  },
);

kept.run();
