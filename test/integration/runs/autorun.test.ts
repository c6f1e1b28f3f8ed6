import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { createColumns, insertRows, rowPath } from '../../support/rows.ts';
import { type CountingTarget, runEnded, startRunsApp, startTarget } from '../../support/runs.ts';
import { columnsPath, createTable } from '../../support/tables.ts';

/* Issue 15, item 5: auto-run. onInsert runs new rows, onSourceUpdate re-runs a row whose source changed. */
interface Ctx {
  t: TestApp;
  key: string;
  target: CountingTarget;
}
const test = suite<Ctx>('auto-run: onInsert and onSourceUpdate start runs by themselves');

test.before(async (ctx) => {
  ctx.target = await startTarget();
  ctx.t = await startRunsApp();
  ctx.key = (await bootstrapAccount(ctx.t.app)).apiKey;
});
test.after(async (ctx) => {
  await ctx.t.close();
  await ctx.target.close();
});

const fetchColumn = (url: string, source: string, autoRun: string) => ({
  dataType: 'json',
  kind: 'enrichment',
  autoRun,
  config: { provider: 'http_request', method: 'GET', url: `${url}/r?n={{${source}}}` },
});

async function cellOf(ctx: Ctx, tableId: string, rowId: string, columnKey: string) {
  const res = await call(ctx.t.app, 'GET', rowPath(tableId, rowId), { headers: bearer(ctx.key) });
  return { value: res.body.cells?.[columnKey], status: res.body.cellStatus?.[columnKey]?.status };
}

async function runsOf(ctx: Ctx, tableId: string) {
  const res = await call(ctx.t.app, 'GET', `/api/tables/${tableId}/runs`, { headers: bearer(ctx.key) });
  assert.is(res.status, 200, JSON.stringify(res.body));
  return res.body.data as { id: string; columnId: string; status: string; counts: { total: number } }[];
}

test('onInsert: rows inserted are run by a run of their own, visible, charged and ended', async (ctx) => {
  const tableId = await createTable(ctx.t.app, ctx.key);
  const columns = await createColumns(ctx.t.app, ctx.key, tableId, {
    n: 'text',
    result: fetchColumn(ctx.target.url, 'n', 'onInsert'),
  });
  const rows = await insertRows(ctx.t.app, ctx.key, tableId, [{ n: 'a1' }, { n: 'a2' }]);
  for (const row of rows) {
    const cell = await eventually('the inserted row to be run', async () => {
      const c = await cellOf(ctx, tableId, row.id, 'result');
      return c.status === 'done' ? c : undefined;
    });
    assert.equal(cell.value.n, row.cells.n);
  }
  const runs = await runsOf(ctx, tableId);
  assert.is(runs.length, 1);
  assert.is(runs[0]!.columnId, columns.result.id);
  const ended = await runEnded(ctx.t.app, ctx.key, runs[0]!.id);
  assert.is(ended.status, 'succeeded');
  assert.is(ended.counts.total, 2);
  assert.is(ended.credits.charged, 2);
});

test('onSourceUpdate: a changed source cell re-runs the row; the column own output and other cells do not', async (ctx) => {
  const tableId = await createTable(ctx.t.app, ctx.key);
  await createColumns(ctx.t.app, ctx.key, tableId, {
    n: 'text',
    other: 'text',
    result: fetchColumn(ctx.target.url, 'n', 'onSourceUpdate'),
  });
  const [row] = await insertRows(ctx.t.app, ctx.key, tableId, [{ n: 'b1' }]);
  // Inserting is no source update: nothing runs.
  await new Promise((r) => setTimeout(r, 300));
  assert.is((await runsOf(ctx, tableId)).length, 0);

  const patch = (cells: object) =>
    call(ctx.t.app, 'PATCH', rowPath(tableId, row!.id), { headers: bearer(ctx.key), body: { cells } });
  assert.is((await patch({ other: 'x' })).status, 200);
  assert.is((await patch({ n: 'b2' })).status, 200);
  const cell = await eventually('the row to be run again', async () => {
    const c = await cellOf(ctx, tableId, row!.id, 'result');
    return c.status === 'done' && c.value?.n === 'b2' ? c : undefined;
  });
  assert.is(cell.value.n, 'b2');
  const runs = await runsOf(ctx, tableId);
  assert.is(runs.length, 1, 'one run: the unrelated cell started none');
  await runEnded(ctx.t.app, ctx.key, runs[0]!.id);
  // The run's own write of `result` did not start another run.
  await new Promise((r) => setTimeout(r, 500));
  assert.is((await runsOf(ctx, tableId)).length, 1);
});

test('a chain: a run writing a column another onSourceUpdate column reads runs that one too', async (ctx) => {
  const tableId = await createTable(ctx.t.app, ctx.key);
  await createColumns(ctx.t.app, ctx.key, tableId, {
    n: 'text',
    first: fetchColumn(ctx.target.url, 'n', 'onInsert'),
  });
  const second = await call(ctx.t.app, 'POST', columnsPath(tableId), {
    headers: bearer(ctx.key),
    body: {
      label: 'Second',
      key: 'second',
      ...fetchColumn(ctx.target.url, 'first', 'onSourceUpdate'),
    },
  });
  assert.is(second.status, 201, JSON.stringify(second.body));
  const [row] = await insertRows(ctx.t.app, ctx.key, tableId, [{ n: 'c1' }]);
  await eventually('the second column to run after the first', async () => {
    const c = await cellOf(ctx, tableId, row!.id, 'second');
    return c.status === 'done' ? c : undefined;
  });
  const runs = await runsOf(ctx, tableId);
  assert.is(runs.length, 2);
});

test.run();
