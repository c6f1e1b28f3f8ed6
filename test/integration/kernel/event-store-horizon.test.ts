import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PoolClient } from '../../../src/db/pool.ts';
import { PostgresEventStore } from '../../../src/event-store/postgres.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { testRegistry } from '../../support/test-streams.ts';

/**
 * Who holds the readers of $all back (migration 0021): a transaction that may still append does, one
 * that only writes elsewhere (a projection's batch, a claim, another database's work) does not.
 */
const test = suite<{ db: TestDatabase; other: TestDatabase; store: PostgresEventStore }>(
  'PostgreSQL event store: the read horizon of $all',
);
test.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.other = await freshDatabase();
  ctx.store = new PostgresEventStore(ctx.db.pool, testRegistry);
  await ctx.db.pool.query('CREATE TABLE side_writes (n int)');
});
test.after.each(async (ctx) => {
  await ctx.store.close();
  await ctx.db.drop();
  await ctx.other.drop();
});

const append = (store: PostgresEventStore, stream: string, n: number) =>
  store.append(stream, [{ type: 'ContractTested', data: { n } }]);

const numbers = async (store: PostgresEventStore) =>
  (await store.readAll({ limit: 100 })).map((e) => (e.data as { n: number }).n);

/** An append as the adapter makes it (append_events), on a connection whose transaction stays open. */
const appendOn = (client: PoolClient, stream: string, n: number) =>
  client.query(
    `SELECT ok FROM append_events($1, 'any', jsonb_build_array(jsonb_build_object(
       'id', gen_random_uuid(), 'type', 'ContractTested', 'data', jsonb_build_object('n', $2::int),
       'metadata', '{}'::jsonb)))`,
    [stream, n],
  );

/** Runs `fn` with a transaction left open on its own connection (it has a transaction id). */
async function withOpenTransaction(
  pool: TestDatabase['pool'],
  begin: (client: PoolClient) => Promise<unknown>,
  fn: (client: PoolClient) => Promise<void>,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await begin(client);
    await fn(client);
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    client.release();
  }
}

test('a long transaction that appends nothing holds nobody back, in this database or another', async ({
  db,
  other,
  store,
}) => {
  await append(store, 'horizon-a', 1);
  await withOpenTransaction(
    db.pool,
    (c) => c.query('INSERT INTO side_writes VALUES (1)'),
    async () =>
      withOpenTransaction(
        other.pool,
        (c) => c.query('SELECT pg_current_xact_id()'),
        async () => {
          await append(store, 'horizon-b', 2);
          // Before migration 0021 both open transactions kept event 2 out of sight until they ended.
          assert.equal(await numbers(store), [1, 2]);
        },
      ),
  );
});

test('an append still running holds back what commits after it, until it commits', async ({ db, store }) => {
  await append(store, 'horizon-a', 1);
  const writer = await db.pool.connect();
  try {
    await writer.query('BEGIN');
    await appendOn(writer, 'horizon-slow', 2);
    await append(store, 'horizon-b', 3);
    // Event 3 committed, but event 2's transaction comes first in the order and may still commit.
    assert.equal(await numbers(store), [1]);
    await writer.query('COMMIT');
  } finally {
    writer.release();
  }
  assert.equal(await numbers(store), [1, 2, 3]);
});

test('an append that rolls back lets the readers pass; its events never appear', async ({ db, store }) => {
  const writer = await db.pool.connect();
  try {
    await writer.query('BEGIN');
    await appendOn(writer, 'horizon-undone', 9);
    await append(store, 'horizon-a', 1);
    assert.equal(await numbers(store), []);
    await writer.query('ROLLBACK');
  } finally {
    writer.release();
  }
  assert.equal(await numbers(store), [1]);
});

test.run();
