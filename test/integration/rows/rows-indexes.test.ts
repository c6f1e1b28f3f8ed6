import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { findMatches } from '../../../commands/rows/upsert.ts';
import { ROW_STORAGE, ROWS, rowsProjection } from '../../../projections/rows/rows.ts';
import { indexName } from '../../../projections/rows/storage.ts';
import { filterFromQuery, rowPredicate } from '../../../queries/rows/predicate.ts';
import { pageQuery, parseSort } from '../../../queries/rows/row-page.ts';
import type { Pool } from '../../../src/db/pool.ts';
import type { RunCondition } from '../../../src/domain/columns/run-condition.ts';
import type { RowColumn } from '../../../src/domain/rows/cells.ts';
import { rebuildProjection } from '../../../src/projection/rebuild.ts';
import { bearer, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { createColumns, insertMany, insertRows, listAll, rowsPath } from '../../support/rows.ts';
import { partitionOf, startRowIndexesApp } from '../../support/rows-storage.ts';
import { createTable } from '../../support/tables.ts';

/*
 * The rows read model keeps a table's rows in a partition of their own with two indexes per column
 * key (projections/rows/storage.ts). That PostgreSQL uses them is checked here with EXPLAIN, not
 * assumed: an expression index serves only the very expression a query has (the case folding and
 * collation of text included). A column added to a table with rows gets its indexes from the
 * row-indexes worker, off the projection; a deleted column's and a deleted table's storage goes.
 */
const test = suite<{ t: TestApp; key: string }>('rows read model: a partition per table, indexed per column');

test.before(async (ctx) => {
  Object.assign(ctx, await startRowIndexesApp());
});
test.after(async (ctx) => ctx.t.close());

const TYPES = {
  name: 'text',
  email: 'email',
  score: 'number',
  active: 'boolean',
  seen: 'date',
  data: 'json',
};

async function seeded(t: TestApp, key: string, count: number) {
  const tableId = await createTable(t.app, key);
  const made = await createColumns(t.app, key, tableId, TYPES);
  const columns: RowColumn[] = Object.values(made).map((c) => ({
    id: c.id,
    key: c.key,
    kind: c.kind,
    dataType: c.dataType,
  }));
  await insertMany(t.app, key, tableId, count, (i) => ({
    name: `Person ${i}`,
    email: `p${i}@example.com`,
    score: i % 997,
    active: i % 3 === 0,
    seen: new Date(Date.UTC(2020, 0, 1) + i * 3_600_000).toISOString(),
    data: { i },
  }));
  await t.db.pool.query(`ANALYZE ${ROWS}`);
  return { tableId, columns, made, partition: (await partitionOf(t.db.pool, tableId))! };
}

/** The indexes a statement's plan reads, with sequential scans made as dear as PostgreSQL allows. */
async function indexesRead(pool: Pool, statement: { text: string; values: unknown[] }): Promise<string[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL enable_seqscan = off');
    const { rows } = await client.query(`EXPLAIN (FORMAT JSON) ${statement.text}`, statement.values);
    const names: string[] = [];
    const walk = (node: Record<string, unknown>) => {
      if (typeof node['Index Name'] === 'string') names.push(node['Index Name']);
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    walk(rows[0]['QUERY PLAN'][0].Plan);
    return names;
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

test('EXPLAIN: sorts by every type either way, cursor pages, equality and ranges read the key indexes', async ({
  t,
  key,
}) => {
  const { tableId, columns, partition } = await seeded(t, key, 3000);
  const byKey = new Map(columns.map((c) => [c.key, c]));
  const index = (k: string, desc = false) => indexName(partition, byKey.get(k)!.id, desc);
  const page = (sort: string, predicate?: { filter?: object; condition?: object }, cursor?: string) =>
    pageQuery(tableId, {
      limit: 100,
      cursor,
      sort: parseSort(sort, byKey, 'sort'),
      cursorPath: 'cursor',
      where: predicate?.filter
        ? rowPredicate(columns, { filter: filterFromQuery(JSON.stringify(predicate.filter)) }, 'body')
        : predicate?.condition
          ? rowPredicate(columns, { condition: predicate.condition as RunCondition }, 'body')
          : undefined,
    });
  for (const k of ['name', 'email', 'score', 'active', 'seen']) {
    for (const desc of [false, true]) {
      const sort = `${desc ? '-' : ''}${k}`;
      assert.ok((await indexesRead(t.db.pool, page(sort))).includes(index(k, desc)), `sort=${sort}`);
      // A page after a cursor (the API's own): each part of the rows after it is an index range.
      const rows = await call(t.app, 'GET', `${rowsPath(tableId)}?limit=100&sort=${sort}`, {
        headers: bearer(key),
      });
      const deep = await indexesRead(t.db.pool, page(sort, undefined, rows.body.nextCursor));
      assert.ok(deep.includes(index(k, desc)), `sort=${sort} after a cursor: ${deep}`);
    }
  }
  const rule = (columnKey: string, operator: string, value?: unknown) => ({
    mode: 'AND',
    filters: [{ columnKey, operator, value }],
  });
  // Case-insensitive equality: the folded text and its collation are the index's.
  const equality = await indexesRead(t.db.pool, page('', { filter: rule('name', 'equals', 'PERSON 1234') }));
  assert.ok(
    equality.some((n) => n === index('name') || n === index('name', true)),
    `equals: ${equality}`,
  );
  const between = { type: 'condition', columnKey: 'score', operator: 'between', value: 10, value2: 11 };
  const number = await indexesRead(t.db.pool, page('', { condition: between }));
  assert.ok(
    number.some((n) => n.startsWith(index('score').slice(0, -2))),
    `between: ${number}`,
  );
  const date = await indexesRead(
    t.db.pool,
    page('-score', {
      filter: {
        mode: 'AND',
        filters: [
          { columnKey: 'seen', operator: 'after', value: '2020-02-01T00:00:00Z' },
          { columnKey: 'seen', operator: 'before', value: '2020-02-01T05:00:00Z' },
        ],
      },
    }),
  );
  assert.ok(
    date.some((n) => n.startsWith(index('seen').slice(0, -2))),
    `date range + sort: ${date}`,
  );
  // The answers are the evaluator's: the indexes change which rows are read, not which are listed.
  const listed = await call(t.app, 'POST', `${rowsPath(tableId)}/query`, {
    headers: bearer(key),
    body: { filter: rule('name', 'equals', 'PERSON 1234') },
  });
  assert.equal(
    listed.body.data.map((r: { cells: { name: string } }) => r.cells.name),
    ['Person 1234'],
  );
  // upsertOn's lookup is an equality on the column's key too.
  const matches = await findMatches({ pool: t.db.pool }, tableId, byKey.get('email')!, ['P77@EXAMPLE.COM']);
  assert.is(matches.size, 1);
});

test('a column added to a table with rows is indexed in the background; a deleted one loses its indexes', async ({
  t,
  key,
}) => {
  const { tableId, partition } = await seeded(t, key, 1500);
  const indexesOf = async () =>
    (await t.db.pool.query(`SELECT indexname FROM pg_indexes WHERE tablename = $1`, [partition])).rows
      .map((r) => r.indexname as string)
      .sort();
  const before = await indexesOf();
  assert.is(before.length, 1 + 2 * 5, 'the primary key and two indexes of each column but the JSON one');
  const { later } = await createColumns(t.app, key, tableId, { later: 'number' });
  // Until its indexes are there, a sort by it answers the same, only slower.
  const sorted = await listAll(t.app, key, tableId, 'limit=1000&sort=-later');
  assert.is(sorted.length, 1500);
  await eventually('the new column indexed', async () => (await indexesOf()).length === before.length + 2);
  assert.ok((await indexesOf()).includes(indexName(partition, later.id, true)));
  const removed = await call(t.app, 'DELETE', `/api/tables/${tableId}/columns/${later.id}`, {
    headers: bearer(key),
  });
  assert.is(removed.status, 204);
  await eventually('its indexes dropped', async () => (await indexesOf()).length === before.length);
});

test('a deleted table takes its partition with it', async ({ t, key }) => {
  const { tableId, partition } = await seeded(t, key, 10);
  const deleted = await call(t.app, 'DELETE', `/api/tables/${tableId}`, { headers: bearer(key) });
  assert.is(deleted.status, 204);
  await eventually('the partition dropped', async () => {
    const { rows } = await t.db.pool.query('SELECT to_regclass($1) AS p', [partition]);
    return rows[0].p === null;
  });
});

test('row counts: GET /api/tables/{id} and the list show what inserts, upserts and deletes leave', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key, 'Counted');
  await createColumns(t.app, key, tableId, { email: 'email' });
  const count = async () => {
    const one = await call(t.app, 'GET', `/api/tables/${tableId}`, { headers: bearer(key) });
    const list = await call(t.app, 'GET', '/api/tables?limit=100', { headers: bearer(key) });
    const listed = list.body.data.find((x: { id: string }) => x.id === tableId);
    assert.is(listed.rowCount, one.body.rowCount, 'the list says what the table says');
    return one.body.rowCount;
  };
  assert.is(await count(), 0);
  const rows = await insertRows(t.app, key, tableId, [{ email: 'a@x.test' }, { email: 'b@x.test' }, {}]);
  assert.is(await count(), 3);
  const upsert = await call(t.app, 'POST', rowsPath(tableId), {
    headers: bearer(key),
    body: { upsertOn: 'email', rows: [{ cells: { email: 'A@x.test' } }, { cells: { email: 'c@x.test' } }] },
  });
  assert.is(upsert.status, 201);
  assert.is(await count(), 4, 'one updated, one created');
  const deleted = await call(t.app, 'POST', `${rowsPath(tableId)}/delete`, {
    headers: bearer(key),
    body: { rowIds: [rows[0].id, rows[1].id, 'row_00000000000000000000000000'] },
  });
  assert.is(deleted.status, 200);
  assert.is(await count(), 2);
  const renamed = await call(t.app, 'PATCH', `/api/tables/${tableId}`, {
    headers: bearer(key),
    body: { name: 'Still counted' },
  });
  assert.is(renamed.body.rowCount, 2);
});

test('a rebuild makes each partition with its indexes again; the swap drops the old ones after it', async ({
  t,
  key,
}) => {
  const { tableId, partition } = await seeded(t, key, 1200);
  const listed = async () =>
    (await listAll(t.app, key, tableId, 'limit=1000&sort=-score,name')).map((r) => [r.id, r.cells]);
  const before = await listed();
  const result = await rebuildProjection(t.deps.store, t.db.pool, rowsProjection, { actor: 'test' });
  assert.is(result.outcome, 'swapped');
  const { rows } = await t.db.pool.query(
    `SELECT partition, row_count FROM ${ROW_STORAGE} WHERE table_id = $1`,
    [tableId],
  );
  assert.is.not(rows[0].partition, partition, "the rebuild's own partition");
  assert.is(Number(rows[0].row_count), 1200);
  const indexes = await t.db.pool.query('SELECT indexname FROM pg_indexes WHERE tablename = $1', [
    rows[0].partition,
  ]);
  assert.is(indexes.rows.length, 1 + 2 * 5);
  const left = await t.db.pool.query(
    `SELECT relname FROM pg_class WHERE relname = $1 OR starts_with(relname, 'table_rows__')`,
    [partition],
  );
  assert.equal(left.rows, [], 'the old partitions and the retired table are gone');
  assert.equal(await listed(), before);
});

test.run();
