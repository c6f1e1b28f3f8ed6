import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PURGE_RANGE_ROWS, purgeRemovedCells } from '../../../processes/rows/purge-cells.ts';
import { reconcileRowIndexes } from '../../../processes/rows/row-indexes.ts';
import { ROW_STORAGE, rowsProjection } from '../../../projections/rows/rows.ts';
import { rowStream } from '../../../src/domain/rows/row-state.ts';
import { rebuildProjection } from '../../../src/projection/rebuild.ts';
import { bearer, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { createColumns, insertMany, listAll, rowPath } from '../../support/rows.ts';
import { partitionOf, startRowIndexesApp } from '../../support/rows-storage.ts';
import { createTable } from '../../support/tables.ts';

/*
 * A removed column's storage goes: its indexes at once (rows-indexes.test.ts), then its cells and
 * statuses, taken out of every row by the row-indexes worker (processes/rows/purge-cells.ts) in short
 * statements that never wait for a row being written, again when a write names the column after its
 * removal, and by a rebuild in its own transaction.
 */
const test = suite<{ t: TestApp; key: string }>('rows read model: a removed column leaves no cells behind');

test.before(async (ctx) => {
  Object.assign(ctx, await startRowIndexesApp());
});
test.after(async (ctx) => ctx.t.close());

/**
 * A table of `count` rows with a kept text column and, to remove, a number, a JSON and an enrichment
 * column (every row holds a status of the enrichment one).
 */
async function seeded(t: TestApp, key: string, count: number) {
  const tableId = await createTable(t.app, key);
  const made = await createColumns(t.app, key, tableId, {
    name: 'text',
    score: 'number',
    blob: 'json',
    summary: { dataType: 'text', kind: 'enrichment' },
  });
  await insertMany(t.app, key, tableId, count, (i) => ({
    name: `Row ${i}`,
    score: i,
    blob: { n: i, tags: ['a', 'b'] },
  }));
  return { tableId, made, partition: (await partitionOf(t.db.pool, tableId))! };
}

/** Rows of the partition whose stored cells or statuses hold any of `ids`. */
async function holding(t: TestApp, partition: string, ids: string[]): Promise<number> {
  const { rows } = await t.db.pool.query(
    `SELECT count(*)::int AS n FROM "${partition}" WHERE cells ?| $1 OR cell_status ?| $1`,
    [ids],
  );
  return rows[0].n;
}

async function deleteColumn(t: TestApp, key: string, tableId: string, columnId: string) {
  const removed = await call(t.app, 'DELETE', `/api/tables/${tableId}/columns/${columnId}`, {
    headers: bearer(key),
  });
  assert.is(removed.status, 204);
}

test('removed columns, indexed, JSON or enrichment, lose their cells and statuses in every row; the rows read the same', async ({
  t,
  key,
}) => {
  const count = 2 * PURGE_RANGE_ROWS + 300;
  const { tableId, made, partition } = await seeded(t, key, count);
  const ids = [made.score.id, made.blob.id, made.summary.id];
  await t.db.pool.query(
    `UPDATE "${partition}" SET cell_status = jsonb_build_object($1::text, '{"status":"done","updatedAt":"2026-01-01T00:00:00.000Z"}'::jsonb)`,
    [made.summary.id],
  );
  assert.is(await holding(t, partition, ids), count);
  const before = await listAll(t.app, key, tableId, 'limit=1000');
  const etagOf = async () =>
    (await call(t.app, 'GET', rowPath(tableId, before[0].id), { headers: bearer(key) })).headers.etag;
  const etag = await etagOf();
  const { rows: versions } = await t.db.pool.query(
    `SELECT id, revision, updated_at FROM "${partition}" ORDER BY id LIMIT 5`,
  );
  for (const column of [made.score, made.blob, made.summary]) await deleteColumn(t, key, tableId, column.id);
  await eventually('the cells and statuses purged', async () => (await holding(t, partition, ids)) === 0);
  assert.is(await holding(t, partition, [made.name.id]), count, 'the kept column kept its cells');
  const after = await listAll(t.app, key, tableId, 'limit=1000');
  assert.is(after.length, count);
  assert.equal(
    after.map((r) => [r.id, r.cells, r.cellStatus, r.updatedAt]),
    before.map((r) => [r.id, { name: r.cells.name }, {}, r.updatedAt]),
    'the API showed none of their cells before, and shows the same rows after',
  );
  const { rows: still } = await t.db.pool.query(
    `SELECT id, revision, updated_at FROM "${partition}" ORDER BY id LIMIT 5`,
  );
  assert.equal(still, versions, 'no row changed its version or time: the API saw no change');
  assert.is(await etagOf(), etag);
});

test('a write that names a removed column after its purge has its cells taken out again', async ({
  t,
  key,
}) => {
  const { tableId, made, partition } = await seeded(t, key, 20);
  await deleteColumn(t, key, tableId, made.score.id);
  await eventually('the cells purged', async () => (await holding(t, partition, [made.score.id])) === 0);
  // As the last result of a run stopped by the column's delete lands: after the removal, in the row's stream.
  const { rows } = await t.db.pool.query(`SELECT id FROM "${partition}" ORDER BY id LIMIT 1`);
  await t.deps.store.append(rowStream.name(tableId, rows[0].id), [
    {
      type: 'RowCellsChanged',
      data: {
        tableId,
        rowId: rows[0].id,
        cells: { [made.score.id]: 7 },
        statuses: {},
        at: new Date().toISOString(),
      },
    },
  ]);
  await eventually('the late cell purged too', async () => {
    const { rows: row } = await t.db.pool.query(`SELECT revision FROM "${partition}" WHERE id = $1`, [
      rows[0].id,
    ]);
    return Number(row[0].revision) === 1 && (await holding(t, partition, [made.score.id])) === 0;
  });
});

test('a row being written is skipped, never waited for, and purged once it is free', async ({ t, key }) => {
  const { tableId, made, partition } = await seeded(t, key, 50);
  const ids = [made.score.id];
  const busy = await t.db.pool.connect();
  const purger = await t.db.pool.connect();
  try {
    await busy.query('BEGIN');
    const { rows } = await busy.query(`SELECT id FROM "${partition}" ORDER BY id LIMIT 1 FOR UPDATE`);
    const started = Date.now();
    const first = await purgeRemovedCells(purger, tableId, partition, ids);
    assert.is(first.busy.length, 1, 'the range of the locked row stayed busy');
    assert.ok(Date.now() - started < 10_000, 'it gave up rather than waiting for the lock');
    assert.is(await holding(t, partition, ids), 1, 'every row but the locked one purged');
    const { rows: left } = await t.db.pool.query(`SELECT id FROM "${partition}" WHERE cells ? $1`, ids);
    assert.equal(left, rows);
    await busy.query('COMMIT');
    assert.equal(await purgeRemovedCells(purger, tableId, partition, ids, undefined, first.busy), {
      stopped: false,
      busy: [],
    });
    assert.is(await holding(t, partition, ids), 0, 'its range alone, tried again, was enough');
  } finally {
    await busy.query('ROLLBACK').catch(() => {});
    busy.release();
    purger.release();
  }
});

test('the worker leaves rows it found busy to a fresh item, which takes their cells out later', async ({
  t,
  key,
}) => {
  const { tableId, made, partition } = await seeded(t, key, 20);
  const busy = await t.db.pool.connect();
  try {
    await busy.query('BEGIN');
    await busy.query(`SELECT id FROM "${partition}" ORDER BY id LIMIT 1 FOR UPDATE`);
    // A JSON column: it has no index, whose drop (CONCURRENTLY) would wait for the busy row's transaction.
    await deleteColumn(t, key, tableId, made.blob.id);
    const again = async () =>
      (
        await t.db.pool.query(
          `SELECT status, jsonb_array_length(payload->'busy') AS ranges FROM work_items
           WHERE kind = 'row-indexes' AND id LIKE $1`,
          ['%#1'],
        )
      ).rows;
    await eventually('a fresh item for the busy row', async () => (await again()).length === 1);
    assert.is(await holding(t, partition, [made.blob.id]), 1, 'all but the busy row purged meanwhile');
    await busy.query('COMMIT');
    await eventually(
      'the busy row purged by it',
      async () => (await holding(t, partition, [made.blob.id])) === 0,
    );
    // The worker stores an item's settlement with its next round trip, a moment after the purge lands.
    await eventually('the fresh item settled', async () => (await again())[0]?.status !== 'leased');
    assert.equal(await again(), [{ status: 'done', ranges: 1 }], 'it took on the busy range alone');
  } finally {
    await busy.query('ROLLBACK').catch(() => {});
    busy.release();
  }
});

test('an id of a current column is never purged, whatever names it', async ({ t, key }) => {
  const { tableId, made, partition } = await seeded(t, key, 30);
  const reconciled = await reconcileRowIndexes(t.db.pool, tableId, [made.name.id]);
  assert.equal(reconciled.busy, []);
  assert.is(await holding(t, partition, [made.name.id]), 30);
});

test('a rebuild leaves no cells of a removed column in the rows it writes again', async ({ t, key }) => {
  const { tableId, made } = await seeded(t, key, 1200);
  await deleteColumn(t, key, tableId, made.blob.id);
  const result = await rebuildProjection(t.deps.store, t.db.pool, rowsProjection, { actor: 'test' });
  assert.is(result.outcome, 'swapped');
  const { rows } = await t.db.pool.query(`SELECT partition FROM ${ROW_STORAGE} WHERE table_id = $1`, [
    tableId,
  ]);
  assert.is(await holding(t, rows[0].partition, [made.blob.id]), 0);
  assert.is(await holding(t, rows[0].partition, [made.score.id]), 1200, 'the kept columns kept theirs');
});

test.run();
