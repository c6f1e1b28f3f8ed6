import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { createColumns, insertRows, listAll, rowsPath } from '../../support/rows.ts';
import { createTable, leaf, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('rows API: filters and run conditions on lists and queries');

const names = (rows: { cells: { name?: string } }[]) => rows.map((r) => r.cells.name ?? '-');

async function seeded(t: Parameters<Parameters<typeof test>[1]>[0]['t'], key: string) {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { name: 'text', score: 'number', seen: 'date', data: 'json' });
  await insertRows(t.app, key, tableId, [
    { name: 'Ada', score: 9, seen: '2024-01-02', data: { company: { domains: ['ada.example'] } } },
    { name: 'ADAM', score: 3, data: { company: { domains: [] } } },
    { name: 'bob', score: 5, seen: '2024-02-01T10:00:00Z' },
    { name: 'Cleo' },
    { score: 7 },
  ]);
  return tableId;
}

test('GET ?filter: AND / OR of rules, case-insensitive, missing values false; with sort and paging', async ({
  t,
  key,
}) => {
  const tableId = await seeded(t, key);
  const q = (filter: object, extra = '') => `filter=${encodeURIComponent(JSON.stringify(filter))}${extra}`;
  const cases: [object, string, string[]][] = [
    [
      { mode: 'AND', filters: [{ columnKey: 'name', operator: 'startsWith', value: 'ada' }] },
      '',
      ['Ada', 'ADAM'],
    ],
    [
      { mode: 'and', filters: [{ columnKey: 'score', operator: 'greaterThan', value: 4 }] },
      '&sort=-score',
      ['Ada', '-', 'bob'],
    ],
    [
      {
        mode: 'OR',
        filters: [
          { columnKey: 'name', operator: 'equals', value: 'CLEO' },
          { columnKey: 'seen', operator: 'after', value: '2024-01-15' },
        ],
      },
      '',
      ['bob', 'Cleo'],
    ],
    [{ mode: 'AND', filters: [{ columnKey: 'score', operator: 'isEmpty' }] }, '', ['Cleo']],
    [
      { mode: 'AND', filters: [{ columnKey: 'name', operator: 'notEquals', value: 'bob' }] },
      '&sort=name',
      ['Ada', 'ADAM', 'Cleo'],
    ],
  ];
  for (const [filter, extra, expected] of cases) {
    for (const limit of [1, 100]) {
      const rows = await listAll(t.app, key, tableId, `limit=${limit}&${q(filter, extra)}`);
      assert.equal(names(rows), expected, `${JSON.stringify(filter)} ${extra} limit ${limit}`);
    }
  }
});

test('POST .../rows/query: a run condition selects only rows where it is true; or a filter', async ({
  t,
  key,
}) => {
  const tableId = await seeded(t, key);
  const query = (body: object) =>
    call(t.app, 'POST', `${rowsPath(tableId)}/query`, { headers: bearer(key), body });
  const condition = {
    type: 'any',
    children: [
      leaf('data', 'endsWith', { jsonPath: 'company.domains[0]', value: '.EXAMPLE' }),
      { type: 'not', children: [leaf('score', 'lessThan', { value: 6 })] },
    ],
  };
  const res = await query({ condition, sort: 'name' });
  assert.is(res.status, 200, JSON.stringify(res.body));
  // Cleo: no data, no score: unknown OR not(unknown) is unknown, so not selected; the row without a name
  // has score 7: not(7 < 6) is true.
  assert.equal(names(res.body.data), ['Ada', '-']);
  const withPolicy = await query({
    condition: {
      ...condition,
      children: [condition.children[0], { ...condition.children[1], missingPolicy: 'true' }],
    },
    sort: 'name',
  });
  assert.equal(names(withPolicy.body.data), ['Ada', 'Cleo', '-']);
  const filtered = await query({
    filter: { mode: 'OR', filters: [{ columnKey: 'score', operator: 'lessThan', value: 4 }] },
  });
  assert.equal(names(filtered.body.data), ['ADAM']);
  const paged = await query({ limit: 2, sort: '-name' });
  assert.equal(names(paged.body.data), ['Cleo', 'bob']);
  const next = await query({ limit: 2, sort: '-name', cursor: paged.body.nextCursor });
  assert.equal(names(next.body.data), ['ADAM', 'Ada']);
});

test('400 naming the path: filter not JSON or not a FilterObject, unknown columns, both filter and condition', async ({
  t,
  key,
}) => {
  const tableId = await seeded(t, key);
  const get = (filter: string) =>
    call(t.app, 'GET', `${rowsPath(tableId)}?filter=${encodeURIComponent(filter)}`, { headers: bearer(key) });
  const post = (body: object) =>
    call(t.app, 'POST', `${rowsPath(tableId)}/query`, { headers: bearer(key), body });
  const deep = Array.from({ length: 25 }).reduce<object>(
    (node) => ({ type: 'not', children: [node] }),
    leaf('name', 'isEmpty'),
  );
  const cases: [Promise<{ status: number; body: { errors: { path: string }[] } }>, string][] = [
    [get('{nope'), 'querystring.filter'],
    [
      get(JSON.stringify({ mode: 'AND', filters: [{ columnKey: 'name', operator: 'sounds' }] })),
      'querystring.filter.filters[0].operator',
    ],
    [
      get(
        JSON.stringify({
          mode: 'AND',
          filters: [{ columnKey: 'score', operator: 'greaterThan', value: 'x' }],
        }),
      ),
      'querystring.filter.filters[0].value',
    ],
    [
      get(JSON.stringify({ mode: 'AND', filters: [{ columnKey: 'nope', operator: 'isEmpty' }] })),
      'querystring.filter.filters[0].columnKey',
    ],
    [
      post({
        filter: { mode: 'AND', filters: [{ columnKey: 'name', operator: 'isEmpty' }] },
        condition: leaf('name', 'isEmpty'),
      }),
      'condition',
    ],
    [
      post({ condition: { type: 'all', children: [leaf('name', 'isEmpty'), leaf('nope', 'isEmpty')] } }),
      'condition.children[1].columnKey',
    ],
    [post({ condition: leaf('name', 'equals', { jsonPath: 'a', value: 'x' }) }), 'condition.columnKey'],
    [post({ condition: leaf('data', 'equals', { jsonPath: 'a..b', value: 'x' }) }), 'condition.jsonPath'],
    [post({ condition: deep }), 'condition'],
  ];
  for (const [answer, path] of cases) {
    const res = await answer;
    assert.is(res.status, 400, path);
    assert.equal(
      res.body.errors.map((e) => e.path),
      [path],
    );
  }
});

test.run();
