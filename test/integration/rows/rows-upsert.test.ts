import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { createColumns, insertRows, listAll, rowPath, rowsPath } from '../../support/rows.ts';
import { createTable, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('rows API: upsert on a column');

test('upsertOn: matching rows are updated (case-insensitively, cells merged), the others created', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { email: 'email', name: 'text', score: 'number' });
  const [ada, bob] = await insertRows(t.app, key, tableId, [
    { email: 'ada@example.com', name: 'Ada', score: 1 },
    { email: 'bob@example.com', name: 'Bob', score: 2 },
  ]);
  const res = await call(t.app, 'POST', rowsPath(tableId), {
    headers: bearer(key),
    body: {
      upsertOn: 'email',
      rows: [
        { cells: { email: 'cleo@example.com', name: 'Cleo' } },
        { cells: { email: 'ADA@example.com', score: 10 } },
        { cells: { name: 'no email' } },
        { cells: { email: 'bob@example.com', score: null } },
      ],
    },
  });
  assert.is(res.status, 201, JSON.stringify(res.body));
  assert.equal(
    res.body.results.map((r: { index: number; outcome: string }) => [r.index, r.outcome]),
    [
      [0, 'created'],
      [1, 'updated'],
      [2, 'created'],
      [3, 'updated'],
    ],
  );
  assert.is(res.body.results[1].rowId, ada.id);
  assert.is(res.body.results[3].rowId, bob.id);
  assert.is(res.headers.location, rowPath(tableId, res.body.results[0].rowId));
  // The cells sent are written, the matched column's own value included (its case as sent).
  assert.equal(res.body.data[1].cells, { email: 'ADA@example.com', name: 'Ada', score: 10 });
  assert.equal(res.body.data[3].cells, { email: 'bob@example.com', name: 'Bob' });
  const all = await listAll(t.app, key, tableId);
  assert.is(all.length, 4);
  assert.equal(all[0].cells, res.body.data[1].cells);

  const again = await call(t.app, 'POST', rowsPath(tableId), {
    headers: bearer(key),
    body: { upsertOn: 'email', rows: [{ cells: { email: 'cleo@EXAMPLE.com', score: 3 } }] },
  });
  assert.is(again.status, 200, 'only updates: 200, no Location');
  assert.is(again.headers.location, undefined);
  assert.equal(again.body.results, [{ index: 0, outcome: 'updated', rowId: res.body.results[0].rowId }]);
});

test('upsertOn: 400 for two rows with one value, an unknown column, a JSON column', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { email: 'email', data: 'json' });
  const cases: [object, string[]][] = [
    [
      {
        upsertOn: 'email',
        rows: [
          { cells: { email: 'a@x.test' } },
          { cells: { email: 'b@x.test' } },
          { cells: { email: 'A@x.test' } },
        ],
      },
      ['rows[2].cells.email'],
    ],
    [{ upsertOn: 'nope', rows: [{ cells: {} }] }, ['upsertOn']],
    [{ upsertOn: 'data', rows: [{ cells: {} }] }, ['upsertOn']],
  ];
  for (const [body, paths] of cases) {
    const res = await call(t.app, 'POST', rowsPath(tableId), { headers: bearer(key), body });
    assert.is(res.status, 400, JSON.stringify(body));
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      paths,
    );
  }
  assert.equal(await listAll(t.app, key, tableId), []);
});

test('concurrent upserts of one new value create one row; the others update it', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { email: 'email', n: 'number' });
  const answers = await Promise.all(
    Array.from({ length: 8 }, (_, n) =>
      call(t.url, 'POST', rowsPath(tableId), {
        headers: bearer(key),
        body: { upsertOn: 'email', rows: [{ cells: { email: 'same@example.com', n } }] },
      }),
    ),
  );
  const outcomes = answers.map((a) => a.body.results?.[0]?.outcome).sort();
  assert.equal(outcomes, ['created', ...Array(7).fill('updated')]);
  const rows = await listAll(t.app, key, tableId);
  assert.is(rows.length, 1);
});

test.run();
