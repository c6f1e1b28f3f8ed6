import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { createColumns, insertRows, listAll, rowsPath } from '../../support/rows.ts';
import { createTable, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('rows API: sort and cursor paging');

test('sort by several keys, descending, missing values last, ties by id; every page size sees every row once', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { name: 'text', score: 'number', seen: 'date', flag: 'boolean' });
  const cells = [
    { name: 'bravo', score: 2, seen: '2024-01-02', flag: true },
    { name: 'Alpha', score: 2, seen: '2023-12-31T23:00:00Z' },
    { name: 'charlie', score: 10 },
    { name: 'alpha', flag: false },
    { name: 'delta', score: -1.5, seen: '2025-06-01' },
    { score: 2 },
    { name: 'echo', score: 10, seen: '2024-01-02' },
  ];
  const rows = await insertRows(t.app, key, tableId, cells);
  const names = (list: { id: string }[]) => list.map((r) => rows.findIndex((x) => x.id === r.id));

  const cases: [string, number[]][] = [
    ['', [0, 1, 2, 3, 4, 5, 6]],
    ['-score', [2, 6, 0, 1, 5, 4, 3]],
    ['score,name', [4, 1, 0, 5, 2, 6, 3]],
    ['name', [1, 3, 0, 2, 4, 6, 5]],
    ['-name', [6, 4, 2, 0, 1, 3, 5]],
    ['seen', [1, 0, 6, 4, 2, 3, 5]],
    ['-seen,-score', [4, 6, 0, 1, 2, 5, 3]],
    ['flag,-score', [3, 0, 2, 6, 1, 5, 4]],
  ];
  for (const [sort, expected] of cases) {
    for (const limit of [1, 2, 3, 100]) {
      const listed = await listAll(t.app, key, tableId, `limit=${limit}&sort=${encodeURIComponent(sort)}`);
      assert.equal(names(listed), expected, `sort=${sort} limit=${limit}`);
    }
  }
});

test('400 for an unknown or repeated sort key, a limit out of range, or a cursor not of this API or sort', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { name: 'text', score: 'number' });
  await insertRows(t.app, key, tableId, [{ name: 'a' }, { name: 'b' }]);
  const first = await call(t.app, 'GET', `${rowsPath(tableId)}?limit=1&sort=name`, { headers: bearer(key) });
  const cursor = first.body.nextCursor as string;
  assert.ok(cursor);
  const forged = Buffer.from(JSON.stringify({ s: 'score', v: ['1; DROP TABLE x'], id: 'row_x' })).toString(
    'base64url',
  );
  const cases: [string, string][] = [
    ['sort=nope', 'querystring.sort'],
    ['sort=name,-name', 'querystring.sort'],
    ['sort=,name', 'querystring.sort'],
    ['limit=0', 'querystring.limit'],
    ['limit=1001', 'querystring.limit'],
    ['cursor=abc', 'querystring.cursor'],
    [`cursor=${cursor}&sort=-name`, 'querystring.cursor'],
    [`cursor=${cursor}`, 'querystring.cursor'],
    [`cursor=${forged}&sort=score`, 'querystring.cursor'],
  ];
  for (const [query, path] of cases) {
    const res = await call(t.app, 'GET', `${rowsPath(tableId)}?${query}`, { headers: bearer(key) });
    assert.is(res.status, 400, query);
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      [path],
      query,
    );
  }
  const second = await call(t.app, 'GET', `${rowsPath(tableId)}?limit=1&sort=name&cursor=${cursor}`, {
    headers: bearer(key),
  });
  assert.equal(
    second.body.data.map((r: { cells: { name: string } }) => r.cells.name),
    ['b'],
  );
  assert.is(second.body.nextCursor, null);
});

test.run();
