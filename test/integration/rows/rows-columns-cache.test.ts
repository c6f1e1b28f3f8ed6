import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { isoTime } from '../../../queries/rows/row-page.ts';
import { TableColumnsCache } from '../../../queries/rows/table-columns.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import { bearer, call, type Target } from '../../support/accounts.ts';
import { serveApp } from '../../support/app.ts';
import { createColumns, insertRows, rowsPath } from '../../support/rows.ts';
import { columnsPath, createTable, tablesSuite } from '../../support/tables.ts';

/*
 * Issue 32: the rows routes keep each table's columns in memory (the service's TableColumnsCache) and
 * check them in the page's own statement. Whatever changes a table's columns, the next page shows it:
 * a column created (its key sorts and filters, its cells show), moved (its cells come in the new
 * order), deleted (its cells go, its key is refused), the table deleted (404), in this process and
 * in another process of the service over the same database.
 */
const test = tablesSuite('rows API: the columns cache never shows a change late');

const page = async (target: Target, key: string, tableId: string, query = '') => {
  const res = await call(target, 'GET', `${rowsPath(tableId)}?${query}`, { headers: bearer(key) });
  return res;
};
const filter = (columnKey: string, value: unknown) =>
  `filter=${encodeURIComponent(JSON.stringify({ mode: 'AND', filters: [{ columnKey, operator: 'equals', value }] }))}`;

/** Every change, each seen by the next read of `reader` (this app, or another over its database). */
async function changesSeenBy(t: Target, reader: Target, key: string, otherKey: string) {
  const tableId = await createTable(t, key);
  const { score } = await createColumns(t, key, tableId, { name: 'text', score: 'number' });
  await insertRows(t, key, tableId, [
    { name: 'b', score: 2 },
    { name: 'a', score: 1 },
  ]);
  const first = await page(reader, key, tableId);
  assert.is(first.status, 200);
  assert.equal(
    first.body.data.map((r: { cells: object }) => Object.keys(r.cells)),
    [
      ['name', 'score'],
      ['name', 'score'],
    ],
  );
  assert.is((await page(reader, key, tableId, 'sort=city')).status, 400, 'no such column yet');

  // Created: its key sorts and filters at once, its cells show.
  await createColumns(t, key, tableId, { city: 'text' });
  await insertRows(t, key, tableId, [{ name: 'c', score: 3, city: 'Oslo' }]);
  const sorted = await page(reader, key, tableId, 'sort=city');
  assert.is(sorted.status, 200, JSON.stringify(sorted.body));
  assert.equal(sorted.body.data[0].cells, { name: 'c', score: 3, city: 'Oslo' });
  const found = await page(reader, key, tableId, filter('city', 'oslo'));
  assert.is(found.status, 200, JSON.stringify(found.body));
  assert.equal(
    found.body.data.map((r: { cells: { name: string } }) => r.cells.name),
    ['c'],
  );

  // Moved: the cells come in the columns' new order.
  const moved = await call(t, 'PATCH', `${columnsPath(tableId)}/${score.id}`, {
    headers: bearer(key),
    body: { position: -100 },
  });
  assert.is(moved.status, 200, JSON.stringify(moved.body));
  const reordered = await page(reader, key, tableId, 'sort=city');
  assert.equal(Object.keys(reordered.body.data[0].cells), ['score', 'name', 'city']);

  // Deleted: its cells go from the same page, and its key sorts and filters nothing.
  const removed = await call(t, 'DELETE', `${columnsPath(tableId)}/${score.id}`, { headers: bearer(key) });
  assert.is(removed.status, 204);
  const after = await page(reader, key, tableId, 'sort=city');
  assert.is(after.status, 200);
  assert.equal(after.body.data[0].cells, { name: 'c', city: 'Oslo' });
  assert.is((await page(reader, key, tableId, 'sort=score')).status, 400);
  assert.is((await page(reader, key, tableId, filter('score', 3))).status, 400);

  // Another organization's key is refused whatever is cached; a deleted table is not found.
  assert.is((await page(reader, otherKey, tableId)).status, 403);
  const gone = await call(t, 'DELETE', `/api/tables/${tableId}`, { headers: bearer(key) });
  assert.ok(gone.status < 300, `${gone.status}`);
  assert.is((await page(reader, key, tableId)).status, 404);
  assert.is((await page(reader, key, tableId, 'sort=city')).status, 404);
}

test('a column created, moved or deleted and a table deleted are seen by the next page', async ({
  t,
  key,
  otherKey,
}) => {
  await changesSeenBy(t.app, t.app, key, otherKey);
  assert.ok(t.deps.parts.tableColumns.size > 0, 'the pages went through the cache');
});

test('another process of the service sees every change on its next page', async ({ t, key, otherKey }) => {
  // A second service over the same database, with its own cache and no projections: it only reads.
  const other = await serveApp(t.db, { routes: service.routes, authenticator: createAuthenticator });
  try {
    await changesSeenBy(t.app, other.app, key, otherKey);
  } finally {
    await other.close();
  }
});

test('a page shows a row as GET .../rows/{id} does (times formatted by PostgreSQL included)', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { name: 'text', data: 'json', n: 'number' });
  await insertRows(t.app, key, tableId, [
    { name: 'x\u0001"y', data: { b: [1, { c: null }], a: 'é' }, n: 1e-7 },
    { name: 'z', n: 12345678.5 },
  ]);
  const listed = await page(t.app, key, tableId, 'sort=-n');
  for (const row of listed.body.data) {
    const one = await call(t.app, 'GET', `${rowsPath(tableId)}/${row.id}`, { headers: bearer(key) });
    assert.equal(row, one.body);
    assert.match(row.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }
});

test("PostgreSQL's UTC text of a time, made ISO by isoTime, is Date#toISOString's", async ({ t }) => {
  const times = [
    '2024-03-01T08:00:00.000Z',
    '2024-03-01T08:00:00.100Z',
    '2024-03-01T08:00:00.120Z',
    '1999-12-31T23:59:59.999Z',
    '0999-01-02T03:04:05.006Z',
  ];
  const { rows } = await t.deps.pool.query<{ utc: string }>(
    `SELECT (x AT TIME ZONE 'UTC')::text AS utc FROM unnest($1::timestamptz[]) AS x`,
    [times],
  );
  assert.equal(
    rows.map((r) => isoTime(r.utc)),
    times,
  );
});

test('the cache is bounded: the table read least recently goes first', async ({ t, key }) => {
  const cache = new TableColumnsCache(2);
  const principal = { keyId: 'k', organizationId: '', userId: 'u', scopes: new Set<never>() };
  const tables = [
    await createTable(t.app, key),
    await createTable(t.app, key),
    await createTable(t.app, key),
  ];
  const { rows } = await t.deps.pool.query('SELECT organization_id FROM research_tables WHERE id = $1', [
    tables[0],
  ]);
  principal.organizationId = rows[0].organization_id;
  for (const id of tables.slice(0, 2)) await cache.load(t.deps.pool, principal, id);
  cache.get(tables[0]!);
  await cache.load(t.deps.pool, principal, tables[2]!);
  assert.is(cache.size, 2);
  assert.ok(cache.get(tables[0]!));
  assert.is(cache.get(tables[1]!), undefined);
});

test.run();
