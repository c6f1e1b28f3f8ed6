import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PostgresEventStore } from '../../../src/event-store/postgres.ts';
import { eventStoreContract } from '../../support/event-store-contract.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { testRegistry } from '../../support/test-streams.ts';

eventStoreContract('PostgreSQL', async () => {
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
});

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
