import * as assert from 'uvu/assert';
import { checkCells, columnsByKey } from '../../../src/domain/rows/cells.ts';
import { bearer, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { createColumns, listAll, rowPath, rowsPath } from '../../support/rows.ts';
import { createTable, tablesSuite } from '../../support/tables.ts';

/*
 * Numbers JSON cannot write (issue 34, item 5): JSON.parse reads 1e309 as Infinity, and
 * JSON.stringify writes Infinity as null, so `{"js":{"k":1e309}}` was stored as `{"k":null}` and
 * `{"js":1e309}` answered 201 showing null, then no cell at all. A 400 naming the cell's path, as a
 * number column answers, and a 201 that shows what a later read shows.
 */
const test = tablesSuite('rows API: numbers out of range in JSON cells');

/** A body as written (JSON.stringify cannot write 1e309). */
const raw = (t: TestApp, method: 'POST' | 'PATCH', url: string, key: string, payload: string) =>
  t.app
    .inject({ method, url, headers: { ...bearer(key), 'content-type': 'application/json' }, payload })
    .then((res) => ({ status: res.statusCode, body: res.json() }));

// biome-ignore lint/suspicious/noExplicitAny: answers are arbitrary JSON that tests pick apart
function refusedAt(answer: { status: number; body: any }): string[] {
  assert.is(answer.status, 400, JSON.stringify(answer.body));
  assert.is(answer.body.code, 'validation_failed');
  for (const e of answer.body.errors) assert.match(e.message, /out of range/);
  return answer.body.errors.map((e: { path: string }) => e.path);
}

test('an insert with 1e309 in a JSON cell, at any depth, is a 400 naming the path; nothing stored', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { js: 'json', n: 'number' });
  const insert = (cells: string) =>
    raw(t, 'POST', rowsPath(tableId), key, `{"rows":[{"cells":{}},{"cells":${cells}}]}`);
  assert.equal(refusedAt(await insert('{"js":{"k":1e309}}')), ['rows[1].cells.js.k']);
  assert.equal(refusedAt(await insert('{"js":1e309}')), ['rows[1].cells.js']);
  assert.equal(refusedAt(await insert('{"js":{"a":[1,{"b":-1e400}]}}')), ['rows[1].cells.js.a[1].b']);
  assert.equal(refusedAt(await insert('{"n":1e309}')), ['rows[1].cells.n']);
  assert.equal(await listAll(t.app, key, tableId), []);
});

test('a PATCH with 1e309 in a JSON cell is a 400 naming the path; the row is unchanged', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { js: 'json' });
  const made = await raw(t, 'POST', rowsPath(tableId), key, '{"rows":[{"cells":{"js":{"k":1}}}]}');
  assert.is(made.status, 201);
  const rowId = made.body.data[0].id;
  const patched = await raw(t, 'PATCH', rowPath(tableId, rowId), key, '{"cells":{"js":{"k":1e309}}}');
  assert.equal(refusedAt(patched), ['cells.js.k']);
  const [row] = await listAll(t.app, key, tableId);
  assert.equal(row.cells.js, { k: 1 });
});

test('numbers JSON can write: the 201 answer is what a later read returns', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { js: 'json' });
  const made = await raw(
    t,
    'POST',
    rowsPath(tableId),
    key,
    '{"rows":[{"cells":{"js":{"max":1.7976931348623157e308,"tiny":1e-400,"neg":-0,"big":1e300}}}]}',
  );
  assert.is(made.status, 201, JSON.stringify(made.body));
  const read = await call(t.app, 'GET', rowPath(tableId, made.body.data[0].id), { headers: bearer(key) });
  assert.equal(read.body.cells, made.body.data[0].cells);
  assert.equal(made.body.data[0].cells.js, { max: 1.7976931348623157e308, tiny: 0, neg: 0, big: 1e300 });
});

test('the cell rule itself (rows written by runs, not through the HTTP edge) refuses a non-finite number', () => {
  const columns = columnsByKey([{ id: 'c1', key: 'js', kind: 'input', dataType: 'json' }]);
  for (const [value, at] of [
    [Number.POSITIVE_INFINITY, ''],
    [{ k: Number.NEGATIVE_INFINITY }, '.k'],
    [[0, [Number.NaN]], '[1][0]'],
  ] as const) {
    const checked = checkCells(columns, { js: value }, 'rows[0].cells', 'clear');
    assert.equal(checked.cells, {});
    assert.equal(
      checked.errors.map((e) => e.path),
      [`rows[0].cells.js${at}`],
    );
  }
  assert.equal(checkCells(columns, { js: { k: null, n: 1 } }, 'cells', 'clear').errors, []);
});

test.run();
