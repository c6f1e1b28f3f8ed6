import * as assert from 'uvu/assert';
import { LLM_LANE_CREDITS } from '../../../src/credits/prices.ts';
import { STARTER_CREDITS } from '../../../src/domain/accounts/events.ts';
import { bearer, call } from '../../support/accounts.ts';
import { createColumns, insertRows } from '../../support/rows.ts';
import { createTable, leaf, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('POST .../columns/{id}/estimate: candidates, eligibility, credits');

async function seeded(t: Parameters<Parameters<typeof test>[1]>[0]['t'], key: string, config: object) {
  const tableId = await createTable(t.app, key);
  const columns = await createColumns(t.app, key, tableId, {
    name: 'text',
    score: 'number',
    summary: { dataType: 'text', kind: 'enrichment', config },
  });
  const rows = await insertRows(t.app, key, tableId, [
    { name: 'a', score: 5 },
    { name: 'b', score: 1 },
    { name: 'c' },
    { name: 'd', score: 9, summary: 'done already' },
    { name: 'e', score: 4 },
  ]);
  const estimate = (body: object) =>
    call(t.app, 'POST', `/api/tables/${tableId}/columns/${columns.summary.id}/estimate`, {
      headers: bearer(key),
      body,
    });
  return { tableId, columns, rows, estimate };
}

const llm = (runCondition?: object) => ({
  provider: 'llm',
  llmLane: 'fast',
  ...(runCondition ? { runCondition } : {}),
});

test('scope all: the run condition decides eligibility (true only), credits by the price table', async ({
  t,
  key,
}) => {
  const { estimate } = await seeded(t, key, llm(leaf('score', 'greaterThan', { value: 3 })));
  const res = await estimate({ scope: 'all' });
  assert.is(res.status, 200, JSON.stringify(res.body));
  // a (5), d (9), e (4) are eligible; b (1) is false; c has no score: unknown, so not eligible.
  assert.equal(res.body, {
    candidates: 5,
    eligible: 3,
    skippedByCondition: 2,
    skippedNotEmpty: 0,
    creditsPerRow: LLM_LANE_CREDITS.fast,
    estimatedCredits: 3 * LLM_LANE_CREDITS.fast,
    balance: STARTER_CREDITS,
    sufficient: true,
  });
  const onlyEmpty = await estimate({ scope: 'all', onlyEmpty: true });
  assert.equal(
    [
      onlyEmpty.body.candidates,
      onlyEmpty.body.skippedNotEmpty,
      onlyEmpty.body.eligible,
      onlyEmpty.body.skippedByCondition,
    ],
    [5, 1, 2, 2],
  );
});

test('scope filtered and selected; ids that name no row of the table are no candidates', async ({
  t,
  key,
}) => {
  const { estimate, rows } = await seeded(t, key, llm());
  const filtered = await estimate({
    scope: 'filtered',
    filter: {
      mode: 'OR',
      filters: [
        { columnKey: 'name', operator: 'in', value: 'x' },
        { columnKey: 'score', operator: 'lessThan', value: 5 },
      ],
    },
  });
  assert.is(filtered.status, 400, 'in takes a list: not a FilterObject operator');
  const byScore = await estimate({
    scope: 'filtered',
    filter: { mode: 'AND', filters: [{ columnKey: 'score', operator: 'lessThan', value: 5 }] },
  });
  assert.equal([byScore.body.candidates, byScore.body.eligible], [2, 2]);
  const selected = await estimate({
    scope: 'selected',
    rowIds: [rows[0].id, rows[3].id, rows[3].id, 'row_nope', 'x'],
    onlyEmpty: true,
  });
  assert.equal(
    [
      selected.body.candidates,
      selected.body.skippedNotEmpty,
      selected.body.eligible,
      selected.body.estimatedCredits,
    ],
    [2, 1, 1, LLM_LANE_CREDITS.fast],
  );
});

test('not enough credits: sufficient false; other providers and input columns priced by the table', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  const columns = await createColumns(t.app, key, tableId, {
    name: 'text',
    smart: { dataType: 'text', kind: 'enrichment', config: { provider: 'llm', llmLane: 'smart' } },
    call: {
      dataType: 'json',
      kind: 'enrichment',
      config: { provider: 'http_request', method: 'GET', url: 'https://x.test/{{name}}' },
    },
    crm: { dataType: 'text', kind: 'action', config: { provider: 'add_to_crm' } },
  });
  await insertRows(
    t.app,
    key,
    tableId,
    Array.from({ length: 7 }, (_, i) => ({ name: `n${i}` })),
  );
  const estimate = async (column: string) =>
    (
      await call(t.app, 'POST', `/api/tables/${tableId}/columns/${columns[column].id}/estimate`, {
        headers: bearer(key),
        body: { scope: 'all' },
      })
    ).body;
  const smart = await estimate('smart');
  assert.equal([smart.creditsPerRow, smart.estimatedCredits, smart.sufficient], [8, 56, false]);
  assert.equal([(await estimate('call')).creditsPerRow, (await estimate('crm')).creditsPerRow], [1, 0]);
  assert.equal([(await estimate('name')).creditsPerRow, (await estimate('name')).sufficient], [0, true]);
});

test('400: filter and rowIds only with their scope, a filter naming no column', async ({ t, key }) => {
  const { estimate } = await seeded(t, key, llm());
  const filter = { mode: 'AND', filters: [{ columnKey: 'name', operator: 'isEmpty' }] };
  const cases: [object, string][] = [
    [{ scope: 'filtered' }, 'filter'],
    [{ scope: 'all', filter }, 'filter'],
    [{ scope: 'selected' }, 'rowIds'],
    [{ scope: 'filtered', filter, rowIds: ['row_x'] }, 'rowIds'],
    [{ scope: 'some' }, 'scope'],
    [
      { scope: 'filtered', filter: { mode: 'AND', filters: [{ columnKey: 'nope', operator: 'isEmpty' }] } },
      'filter.filters[0].columnKey',
    ],
  ];
  for (const [body, path] of cases) {
    const res = await estimate(body);
    assert.is(res.status, 400, JSON.stringify(body));
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      [path],
      JSON.stringify(body),
    );
  }
});

test.run();
