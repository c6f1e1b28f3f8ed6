import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { cliSuite } from '../../support/cli-suite.ts';
import { createColumns } from '../../support/rows.ts';
import { createTable } from '../../support/tables.ts';

const { test, stk, json } = cliSuite('e2e: stk rows and stk columns estimate against the running service');

test('insert JSON from a file and from stdin (upsert), list, get, patch, delete, estimate', async (ctx) => {
  const tableId = await createTable(ctx.service.url, ctx.key);
  const columns = await createColumns(ctx.service.url, ctx.key, tableId, {
    email: 'email',
    score: 'number',
    summary: { dataType: 'text', kind: 'enrichment', config: { provider: 'llm', llmLane: 'very_fast' } },
  });
  const file = join(ctx.dir, 'rows.json');
  await writeFile(
    file,
    JSON.stringify([
      { email: 'a@x.test', score: 3 },
      { cells: { email: 'b@x.test', score: 1 } },
      { email: 'c@x.test' },
    ]),
  );
  const inserted = await stk(ctx, ['--json', 'rows', 'insert', tableId, file, '--batch-size', '2']);
  assert.is(inserted.code, 0, inserted.stderr);
  assert.equal(JSON.parse(inserted.stdout), { created: 3, updated: 0, batches: 2 });
  assert.match(inserted.stderr, /insert into tbl_\w+: 3\/3 rows/);
  const upserted = await json(
    ctx,
    ['rows', 'insert', tableId, '--upsert-on', 'email'],
    JSON.stringify([{ email: 'A@x.test', score: 7 }, { email: 'd@x.test' }]),
  );
  assert.equal(upserted, { created: 1, updated: 1, batches: 1 });

  const listed = await json(ctx, ['rows', 'list', tableId, '--all', '--limit', '1', '--sort', '-score']);
  assert.equal(
    listed.data.map((r: { cells: { email: string } }) => r.cells.email),
    ['A@x.test', 'b@x.test', 'c@x.test', 'd@x.test'],
  );
  const filtered = await json(ctx, [
    'rows',
    'list',
    tableId,
    '--filter',
    '{"mode":"AND","filters":[{"columnKey":"score","operator":"greaterThan","value":2}]}',
  ]);
  assert.is(filtered.data.length, 1);
  const human = await stk(ctx, ['rows', 'list', tableId]);
  assert.match(human.stdout, /ID\s+CELLS/);

  const id = listed.data[1].id;
  assert.is((await json(ctx, ['rows', 'get', tableId, id])).cells.score, 1);
  const patched = await json(ctx, ['rows', 'patch', tableId, id, '--cells', '{"score":null,"summary":"hi"}']);
  assert.equal(patched.cells, { email: 'b@x.test', summary: 'hi' });

  const estimate = await json(ctx, ['columns', 'estimate', tableId, columns.summary.id, '--only-empty']);
  assert.equal(
    [estimate.candidates, estimate.skippedNotEmpty, estimate.eligible, estimate.estimatedCredits],
    [4, 1, 3, 3],
  );
  const selected = await json(ctx, [
    'columns',
    'estimate',
    tableId,
    columns.summary.id,
    '--row-ids',
    id,
    listed.data[0].id,
  ]);
  assert.is(selected.candidates, 2);

  assert.equal(await json(ctx, ['rows', 'delete', tableId, id]), { deleted: 1 });
  assert.equal(
    await json(ctx, ['rows', 'delete', tableId, listed.data[0].id, listed.data[2].id, 'row_nope']),
    { deleted: 2 },
  );
  assert.is((await json(ctx, ['rows', 'list', tableId])).data.length, 1);
});

test('a refused batch names the row by its place in the input; exit 1', async (ctx) => {
  const tableId = await createTable(ctx.service.url, ctx.key);
  await createColumns(ctx.service.url, ctx.key, tableId, { score: 'number' });
  const rows = [{ score: 1 }, { score: 2 }, { score: 3 }, { score: 'four' }, { score: 5 }];
  const run = await stk(ctx, ['rows', 'insert', tableId, '-', '--batch-size', '2'], JSON.stringify(rows));
  assert.is(run.code, 1);
  assert.match(run.stderr, /row 4\.cells\.score: expected a number/);
  const bad = await stk(ctx, ['rows', 'insert', tableId, '-'], '{not json');
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /not JSON/);
});

test('CSV import end to end: header keys, values typed by column, quotes and commas', async (ctx) => {
  const tableId = await createTable(ctx.service.url, ctx.key);
  await createColumns(ctx.service.url, ctx.key, tableId, {
    name: 'text',
    score: 'number',
    vip: 'boolean',
    data: 'json',
  });
  const csv = [
    'name,score,vip,data',
    '"Lovelace, Ada",3.5,yes,"{""a"":1}"',
    'Bob,,no,',
    '"multi',
    'line",7,true,plain',
  ].join('\n');
  const file = join(ctx.dir, 'rows.csv');
  await writeFile(file, `\ufeff${csv}\n`);
  assert.equal(await json(ctx, ['rows', 'insert', tableId, file]), { created: 3, updated: 0, batches: 1 });
  const listed = await json(ctx, ['rows', 'list', tableId]);
  assert.equal(
    listed.data.map((r: { cells: object }) => r.cells),
    [
      { name: 'Lovelace, Ada', score: 3.5, vip: true, data: { a: 1 } },
      { name: 'Bob', vip: false },
      { name: 'multi\nline', score: 7, vip: true, data: 'plain' },
    ],
  );
});

test.run();
