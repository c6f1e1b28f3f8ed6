import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ROWS } from '../../../projections/rows/rows.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { createColumns, insertRows, listAll } from '../../support/rows.ts';
import { runEnded, startRunsApp, startTarget } from '../../support/runs.ts';
import { createTable } from '../../support/tables.ts';

/*
 * A run's answers go into cells of the column's data type, as the rows API would take them: text that
 * spells a number is stored as the number, anything else fails its row. Sorting and filtering the column
 * then work; and cells of another type that older runs stored are taken as missing, never a 500.
 */
const test = suite<{ t: TestApp }>('column runs: answers stored as the column data type');

test.before.each(async (ctx) => {
  ctx.t = await startRunsApp();
});
test.after.each(async (ctx) => {
  await ctx.t.close();
});

const ANSWERS: Record<string, unknown> = {
  '1': '42',
  '2': 7,
  '3': ' -1.5e2 ',
  '4': 'hello',
  '5': { score: 1 },
};

test('a number column stores numbers, text spelling one as the number; other answers fail their rows', async ({
  t,
}) => {
  const target = await startTarget({ answer: (n) => ANSWERS[n] });
  try {
    const key = (await bootstrapAccount(t.app)).apiKey;
    const tableId = await createTable(t.app, key);
    const columns = await createColumns(t.app, key, tableId, {
      n: 'text',
      score: {
        dataType: 'number',
        kind: 'enrichment',
        config: { provider: 'http_request', method: 'GET', url: `${target.url}/r?n={{n}}` },
      },
    });
    await insertRows(
      t.app,
      key,
      tableId,
      Object.keys(ANSWERS).map((n) => ({ n })),
    );
    const res = await call(t.app, 'POST', `/api/tables/${tableId}/columns/${columns.score.id}/run`, {
      headers: bearer(key),
      body: { scope: 'all' },
    });
    const run = await runEnded(t.app, key, res.body.id);
    assert.equal([run.status, run.counts.succeeded, run.counts.failed], ['partially_succeeded', 3, 2]);
    const failed = await call(t.app, 'GET', `/api/runs/${res.body.id}/rows?status=failed`, {
      headers: bearer(key),
    });
    for (const row of failed.body.data) {
      assert.is(row.error.code, 'value_not_storable');
      assert.match(
        row.error.message,
        /the column holds numbers and the answer is (text that is not one|an object)/,
      );
    }
    const rows = await eventually('every cell final', async () => {
      const all = await listAll(t.app, key, tableId);
      return all.every((r) => ['done', 'error'].includes(r.cellStatus.score?.status)) ? all : undefined;
    });
    const byN = Object.fromEntries(rows.map((r) => [r.cells.n, r.cells.score]));
    assert.equal(byN, { '1': 42, '2': 7, '3': -150, '4': undefined, '5': undefined });
    const sorted = await call(t.app, 'GET', `/api/tables/${tableId}/rows?sort=-score`, {
      headers: bearer(key),
    });
    assert.is(sorted.status, 200);
    const order = sorted.body.data.map((r: { cells: { n: string } }) => r.cells.n);
    assert.equal(order.slice(0, 3), ['1', '2', '3']);
    assert.equal(order.slice(3).sort(), ['4', '5']);
  } finally {
    await target.close();
  }
});

test('cells of another type stored before (an older run) sort last and filter as missing, never a 500', async ({
  t,
}) => {
  const key = (await bootstrapAccount(t.app)).apiKey;
  const tableId = await createTable(t.app, key);
  const columns = await createColumns(t.app, key, tableId, { n: 'text', score: 'number', ok: 'boolean' });
  await insertRows(t.app, key, tableId, [
    { n: 'a', score: 3, ok: true },
    { n: 'b', score: 1, ok: false },
    { n: 'c', score: 2, ok: true },
  ]);
  // What a run before answers were checked could leave: an object in a number cell, text in a boolean one.
  await t.db.pool.query(
    `UPDATE ${ROWS} SET cells = cells || jsonb_build_object($2::text, '{"a": 1}'::jsonb, $3::text, '"yes"'::jsonb)
     WHERE table_id = $1 AND cells->>$4 = 'c'`,
    [tableId, columns.score.id, columns.ok.id, columns.n.id],
  );
  const names = (body: { data: { cells: { n: string } }[] }) => body.data.map((r) => r.cells.n);
  const sorted = await call(t.app, 'GET', `/api/tables/${tableId}/rows?sort=-score`, {
    headers: bearer(key),
  });
  assert.is(sorted.status, 200, JSON.stringify(sorted.body));
  assert.equal(names(sorted.body), ['a', 'b', 'c']);
  const byOk = await call(t.app, 'GET', `/api/tables/${tableId}/rows?sort=ok`, { headers: bearer(key) });
  assert.is(byOk.status, 200, JSON.stringify(byOk.body));
  assert.equal(names(byOk.body), ['b', 'a', 'c']);
  const filter = (columnKey: string, operator: string, value?: unknown) => ({
    filter: { mode: 'AND', filters: [{ columnKey, operator, ...(value === undefined ? {} : { value }) }] },
  });
  const greater = await call(t.app, 'POST', `/api/tables/${tableId}/rows/query`, {
    headers: bearer(key),
    body: filter('score', 'greaterThan', 0),
  });
  assert.is(greater.status, 200, JSON.stringify(greater.body));
  assert.equal(names(greater.body).sort(), ['a', 'b']);
  const isTrue = await call(t.app, 'POST', `/api/tables/${tableId}/rows/query`, {
    headers: bearer(key),
    body: filter('ok', 'isTrue'),
  });
  assert.is(isTrue.status, 200, JSON.stringify(isTrue.body));
  assert.equal(names(isTrue.body), ['a']);
});

test.run();
