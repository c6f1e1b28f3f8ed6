import * as assert from 'uvu/assert';
import type { Scope } from '../../../src/auth/scopes.ts';
import { newBatchId, rowIdOf } from '../../../src/domain/rows/ids.ts';
import { newColumnId, newTableId } from '../../../src/domain/tables/ids.ts';
import { bearer, call, issueKey } from '../../support/accounts.ts';
import { createColumns, insertRows, rowPath, rowsPath } from '../../support/rows.ts';
import { createTable, tablesSuite } from '../../support/tables.ts';

/** A row id of the right form that names no row. */
const newRowId = () => rowIdOf(newBatchId(), 0);

const test = tablesSuite('rows API: 401, 403 (scope, organization), 404 on every route');

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Every route of rows with a body that passes validation, the scope it needs, and whether it names a row. */
function routes(tableId: string, rowId: string, columnId: string) {
  return [
    ['GET', rowsPath(tableId), undefined, 'tables:read'],
    ['POST', rowsPath(tableId), { rows: [{ cells: { name: 'x' } }] }, 'tables:write'],
    ['POST', `${rowsPath(tableId)}/query`, { limit: 5 }, 'tables:read'],
    ['POST', `${rowsPath(tableId)}/delete`, { rowIds: [rowId] }, 'tables:write'],
    ['GET', rowPath(tableId, rowId), undefined, 'tables:read'],
    ['PATCH', rowPath(tableId, rowId), { cells: { name: 'y' } }, 'tables:write'],
    ['DELETE', rowPath(tableId, rowId), undefined, 'tables:write'],
    ['POST', `/api/tables/${tableId}/columns/${columnId}/estimate`, { scope: 'all' }, 'columns:run'],
  ] as [Method, string, object | undefined, Scope][];
}

test('401 without a key or with a bad one, on every route', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  for (const [method, path, body] of routes(tableId, newRowId(), 'col_x')) {
    assert.is((await call(t.app, method, path, { body })).status, 401, `${method} ${path}`);
    const bad = await call(t.app, method, path, { headers: bearer('stk_x.y'), body });
    assert.is(bad.status, 401, `${method} ${path}`);
  }
});

test('403 missing_scope for a key without the route scope; the scope alone is enough', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  const { name } = await createColumns(t.app, key, tableId, { name: 'text' });
  const count = routes(tableId, newRowId(), name.id).length;
  for (let i = 0; i < count; i++) {
    // A row of its own for each route: a DELETE must not take away the next route's row.
    const [row] = await insertRows(t.app, key, tableId, [{ name: 'z' }]);
    const [method, path, body, scope] = routes(tableId, row.id, name.id)[i]!;
    const others = (['tables:read', 'tables:write', 'columns:run'] as Scope[]).filter((s) => s !== scope);
    const without = (await issueKey(t.app, key, others)).apiKey;
    const denied = await call(t.app, method, path, { headers: bearer(without), body });
    assert.is(denied.status, 403, `${method} ${path}`);
    assert.is(denied.body.code, 'missing_scope');
    const only = (await issueKey(t.app, key, [scope])).apiKey;
    const allowed = await call(t.app, method, path, { headers: bearer(only), body });
    assert.ok(
      allowed.status < 300,
      `${method} ${path} with ${scope}: ${allowed.status} ${JSON.stringify(allowed.body)}`,
    );
  }
});

test("403 forbidden for another organization's table, whatever the row id", async ({ t, key, otherKey }) => {
  const tableId = await createTable(t.app, key);
  const { name } = await createColumns(t.app, key, tableId, { name: 'text' });
  const [row] = await insertRows(t.app, key, tableId, [{ name: 'mine' }]);
  for (const rowId of [row.id, newRowId(), 'nope']) {
    for (const [method, path, body] of routes(tableId, rowId, name.id)) {
      const res = await call(t.app, method, path, { headers: bearer(otherKey), body });
      assert.is(res.status, 403, `${method} ${path}`);
      assert.is(res.body.code, 'forbidden');
    }
  }
  const still = await call(t.app, 'GET', rowPath(tableId, row.id), { headers: bearer(key) });
  assert.equal(still.body.cells, { name: 'mine' }, 'nothing the other organization sent changed the row');
});

test('404 for an unknown table, an id of the wrong form, an unknown row or a row of another table', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  const { name } = await createColumns(t.app, key, tableId, { name: 'text' });
  const otherTable = await createTable(t.app, key, 'other');
  await createColumns(t.app, key, otherTable, { name: 'text' });
  const [foreign] = await insertRows(t.app, key, otherTable, [{ name: 'theirs' }]);
  for (const table of [newTableId(), 'nope', `tbl_${'x'.repeat(90)}`]) {
    for (const [method, path, body] of routes(table, newRowId(), name.id)) {
      const res = await call(t.app, method, path, { headers: bearer(key), body });
      assert.is(res.status, 404, `${method} ${path}`);
      assert.is(res.body.code, 'not_found');
    }
  }
  for (const rowId of [newRowId(), foreign.id, 'row_bad', `row_${'x'.repeat(200)}`]) {
    for (const [method, path, body] of routes(tableId, rowId, name.id)) {
      if (!path.includes(rowId) || path.includes('/delete')) continue;
      const res = await call(t.app, method, path, { headers: bearer(key), body });
      assert.is(res.status, 404, `${method} ${path}`);
    }
  }
  const otherColumn = (
    await call(t.app, 'GET', `/api/tables/${otherTable}/columns`, { headers: bearer(key) })
  ).body[0];
  for (const columnId of [newColumnId(), otherColumn.id, 'col_bad']) {
    const res = await call(t.app, 'POST', `/api/tables/${tableId}/columns/${columnId}/estimate`, {
      headers: bearer(key),
      body: { scope: 'all' },
    });
    assert.is(res.status, 404, columnId);
  }
  const untouched = await call(t.app, 'GET', rowPath(otherTable, foreign.id), { headers: bearer(key) });
  assert.equal(untouched.body.cells, { name: 'theirs' });
});

test.run();
