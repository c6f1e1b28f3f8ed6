import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { createColumns, rowsPath } from '../../support/rows.ts';
import { columnsPath, createTable, leaf, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('rows API: a date cell or condition names a real moment, or is a 400');

// Date.parse took each of these and rolled it over (30 February to 1 March, 24:00 to the next day),
// or normalized it to a year past 9999, whose text no longer sorts as time does.
const IMPOSSIBLE = [
  '2024-02-30',
  '2023-02-29',
  '2024-04-31T10:00Z',
  '2024-01-01T24:00Z',
  '2024-01-01T10:60Z',
  '2024-01-01T10:00:60Z',
  '2024-01-01T10:00+24:00',
  '2024-01-01T10:00+05:60',
  '9999-12-31T23:59:59-23:59',
  '0000-01-01T00:00+01:00',
];

const STORED: [string, string][] = [
  ['2024-02-29', '2024-02-29T00:00:00.000Z'],
  ['2024-01-01T23:59:59+23:59', '2024-01-01T00:00:59.000Z'],
  ['2024-01-01 10:00', '2024-01-01T10:00:00.000Z'],
  ['0000-01-01', '0000-01-01T00:00:00.000Z'],
  ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
  ['9999-12-31T00:00-23:59', '9999-12-31T23:59:00.000Z'],
];

test('POST .../rows: an impossible date is a 400 naming the cell; a real one is stored in UTC', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { when: 'date' });
  const answers = [];
  for (const when of IMPOSSIBLE) {
    const res = await call(t.app, 'POST', rowsPath(tableId), {
      headers: bearer(key),
      body: { rows: [{ cells: { when } }] },
    });
    answers.push({
      when,
      status: res.status,
      paths: (res.body.errors ?? []).map((e: { path: string }) => e.path),
    });
  }
  assert.equal(
    answers,
    IMPOSSIBLE.map((when) => ({ when, status: 400, paths: ['rows[0].cells.when'] })),
  );
  const res = await call(t.app, 'POST', rowsPath(tableId), {
    headers: bearer(key),
    body: { rows: STORED.map(([when]) => ({ cells: { when } })) },
  });
  assert.is(res.status, 201, JSON.stringify(res.body));
  assert.equal(
    res.body.data.map((r: { cells: { when: string } }) => r.cells.when),
    STORED.map(([, stored]) => stored),
  );
});

test('a run condition or filter on an impossible date is a 400 naming its value', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { when: 'date' });
  const answers = [];
  for (const value of IMPOSSIBLE) {
    const created = await call(t.app, 'POST', columnsPath(tableId), {
      headers: bearer(key),
      body: {
        label: `Later ${answers.length}`,
        kind: 'input',
        dataType: 'text',
        config: { runCondition: leaf('when', 'before', { value }) },
      },
    });
    const between = await call(t.app, 'POST', `${rowsPath(tableId)}/query`, {
      headers: bearer(key),
      body: { condition: leaf('when', 'dateBetween', { value: '2024-01-01', value2: value }) },
    });
    const filter = JSON.stringify({
      mode: 'AND',
      filters: [{ columnKey: 'when', operator: 'after', value }],
    });
    const filtered = await call(t.app, 'GET', `${rowsPath(tableId)}?filter=${encodeURIComponent(filter)}`, {
      headers: bearer(key),
    });
    answers.push({
      value,
      answers: [created, between, filtered].map((res) => ({
        status: res.status,
        paths: (res.body.errors ?? []).map((e: { path: string }) => e.path),
      })),
    });
  }
  assert.equal(
    answers,
    IMPOSSIBLE.map((value) => ({
      value,
      answers: [
        { status: 400, paths: ['config.runCondition.value'] },
        { status: 400, paths: ['condition.value2'] },
        { status: 400, paths: ['querystring.filter.filters[0].value'] },
      ],
    })),
  );
});

test.run();
