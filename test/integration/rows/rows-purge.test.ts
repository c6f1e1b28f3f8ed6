import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { PURGE_RANGE_ROWS, purgeDroppedCells } from '../../../processes/rows/purge-cells.ts';
import { rowIndexesWorker } from '../../../processes/rows/row-indexes.ts';
import { ROW_STORAGE, rowsProjection } from '../../../projections/rows/rows.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import { rebuildProjection } from '../../../src/projection/rebuild.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { createColumns, insertRows, listAll, rowPath } from '../../support/rows.ts';
import { createTable } from '../../support/tables.ts';

/*
 * A removed column's storage goes: its indexes at once (rows-indexes.test.ts), then its cells, taken
 * out of every row by the row-indexes worker (processes/rows/purge-cells.ts) in short statements that
 * never wait for a row being written, and by a rebuild in its own transaction.
 */
const test = suite<{ t: TestApp; key: string }>('rows read model: a removed column leaves no cells behind');

test.before(async (ctx) => {
  ctx.t = await startTestApp({
    projections: service.projections,
    routes: service.routes,
    authenticator: createAuthenticator,
    workers: [rowIndexesWorker],
  });
  ctx.key = (await bootstrapAccount(ctx.t.app)).apiKey;
});
test.after(async (ctx) => ctx.t.close());

/** A table of `count` rows with a kept text column and, to remove, a number and a JSON column. */
async function seeded(t: TestApp, key: string, count: number) {
  const tableId = await createTable(t.app, key);
  const made = await createColumns(t.app, key, tableId, { name: 'text', gone: 'number', blob: 'json' });
  for (let from = 0; from < count; from += 1000) {
    await insertRows(
      t.app,
      key,
      tableId,
      Array.from({ length: Math.min(1000, count - from) }, (_, j) => ({
        name: `Row ${from + j}`,
        gone: from + j,
        blob: { n: from + j, tags: ['a', 'b'] },
      })),
    );
  }
  const { rows } = await t.db.pool.query(`SELECT partition FROM ${ROW_STORAGE} WHERE table_id = $1`, [
    tableId,
  ]);
  return { tableId, made, partition: rows[0].partition as string };
}

/** Rows of the partition whose stored cells hold any of `ids`. */
async function holding(t: TestApp, partition: string, ids: string[]): Promise<number> {
  const { rows } = await t.db.pool.query(`SELECT count(*)::int AS n FROM "${partition}" WHERE cells ?| $1`, [
    ids,
  ]);
  return rows[0].n;
}

const droppedOf = async (t: TestApp, tableId: string): Promise<string[]> =>
  (await t.db.pool.query(`SELECT dropped FROM ${ROW_STORAGE} WHERE table_id = $1`, [tableId])).rows[0]
    .dropped;

test('removed columns, indexed or JSON, lose their cells in every row; the rows read the same', async ({
  t,
  key,
}) => {
  const count = 2 * PURGE_RANGE_ROWS + 300;
  const { tableId, made, partition } = await seeded(t, key, count);
  const ids = [made.gone.id, made.blob.id];
  assert.is(await holding(t, partition, ids), count);
  const before = await listAll(t.app, key, tableId, 'limit=1000');
  const etagOf = async () =>
    (await call(t.app, 'GET', rowPath(tableId, before[0].id), { headers: bearer(key) })).headers.etag;
  const etag = await etagOf();
  const { rows: versions } = await t.db.pool.query(
    `SELECT id, revision, updated_at FROM "${partition}" ORDER BY id LIMIT 5`,
  );
  for (const column of [made.gone, made.blob]) {
    const removed = await call(t.app, 'DELETE', `/api/tables/${tableId}/columns/${column.id}`, {
      headers: bearer(key),
    });
    assert.is(removed.status, 204);
  }
  await eventually('the cells purged', async () => (await holding(t, partition, ids)) === 0);
  await eventually(
    'the storage row lists nothing left',
    async () => (await droppedOf(t, tableId)).length === 0,
  );
  const after = await listAll(t.app, key, tableId, 'limit=1000');
  assert.is(after.length, count);
  assert.equal(
    after.map((r) => [r.id, r.cells, r.updatedAt]),
    before.map((r) => [r.id, { name: r.cells.name }, r.updatedAt]),
    'the API showed none of their cells before, and shows the same rows after',
  );
  const { rows: still } = await t.db.pool.query(
    `SELECT id, revision, updated_at FROM "${partition}" ORDER BY id LIMIT 5`,
  );
  assert.equal(still, versions, 'no row changed its version or time: the API saw no change');
  assert.is(await etagOf(), etag);
});

test('a row being written is skipped, never waited for, and purged once it is free', async ({ t, key }) => {
  const { tableId, made, partition } = await seeded(t, key, 50);
  const ids = [made.gone.id];
  const busy = await t.db.pool.connect();
  const purger = await t.db.pool.connect();
  try {
    await busy.query('BEGIN');
    const { rows } = await busy.query(`SELECT id FROM "${partition}" ORDER BY id LIMIT 1 FOR UPDATE`);
    const started = Date.now();
    assert.is(await purgeDroppedCells(purger, tableId, partition, ids), false, 'a range stayed busy');
    assert.ok(Date.now() - started < 10_000, 'it gave up rather than waiting for the lock');
    assert.is(await holding(t, partition, ids), 1, 'every row but the locked one purged');
    const { rows: left } = await t.db.pool.query(`SELECT id FROM "${partition}" WHERE cells ? $1`, ids);
    assert.equal(left, rows);
    await busy.query('COMMIT');
    assert.is(await purgeDroppedCells(purger, tableId, partition, ids), true);
    assert.is(await holding(t, partition, ids), 0);
  } finally {
    await busy.query('ROLLBACK').catch(() => {});
    busy.release();
    purger.release();
  }
});

test('a rebuild leaves no cells of a removed column in the rows it writes again', async ({ t, key }) => {
  const { tableId, made } = await seeded(t, key, 1200);
  const removed = await call(t.app, 'DELETE', `/api/tables/${tableId}/columns/${made.blob.id}`, {
    headers: bearer(key),
  });
  assert.is(removed.status, 204);
  const result = await rebuildProjection(t.deps.store, t.db.pool, rowsProjection, { actor: 'test' });
  assert.is(result.outcome, 'swapped');
  const { rows } = await t.db.pool.query(
    `SELECT partition, dropped FROM ${ROW_STORAGE} WHERE table_id = $1`,
    [tableId],
  );
  assert.equal(rows[0].dropped, []);
  assert.is(await holding(t, rows[0].partition, [made.blob.id]), 0);
  assert.is(await holding(t, rows[0].partition, [made.gone.id]), 1200, 'the kept columns kept theirs');
});

test.run();
