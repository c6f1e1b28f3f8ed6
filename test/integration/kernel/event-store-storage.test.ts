import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { siteContentProjection } from '../../../projections/content/site-content.ts';
import { PostgresEventStore } from '../../../src/event-store/postgres.ts';
import { Projections } from '../../../src/projection/projections.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { testRegistry } from '../../support/test-streams.ts';

/** How the migrations store large payloads, on whichever PostgreSQL the tests run against. */
const test = suite<{ db: TestDatabase }>('event store storage');
test.before(async (ctx) => {
  ctx.db = await freshDatabase();
});
test.after(async (ctx) => ctx.db.drop());

async function serverHasLz4(db: TestDatabase): Promise<boolean> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('CREATE TEMP TABLE lz4_probe (x text COMPRESSION lz4)');
    return true;
  } catch {
    return false;
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

test('events.data is compressed with lz4 exactly where the server has it, else with the default', async ({
  db,
}) => {
  const { rows } = await db.pool.query<{ method: string }>(
    `SELECT attcompression AS method FROM pg_attribute
     WHERE attrelid = 'events'::regclass AND attname = 'data'`,
  );
  const lz4 = await serverHasLz4(db);
  console.log(`  (this server ${lz4 ? 'has' : 'has no'} lz4)`);
  assert.is(rows[0]?.method, lz4 ? 'l' : '');
});

test('site_content keeps its HTML out of line and uncompressed', async ({ db }) => {
  const store = new PostgresEventStore(db.pool, testRegistry);
  const projections = new Projections(store, db.pool, [siteContentProjection]);
  await projections.start();
  try {
    const { rows } = await db.pool.query<{ storage: string }>(
      `SELECT attstorage AS storage FROM pg_attribute
       WHERE attrelid = 'site_content'::regclass AND attname = 'upstream_html'`,
    );
    assert.is(rows[0]?.storage, 'e');
  } finally {
    await projections.stop();
    await store.close();
  }
});

test.run();
