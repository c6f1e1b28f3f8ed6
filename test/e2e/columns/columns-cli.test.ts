import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { cliSuite } from '../../support/cli-suite.ts';

const { test, stk, json } = cliSuite('e2e: stk tables and stk columns against the running service');

test('stk tables create | list | get | rename | delete', async (ctx) => {
  const table = await json(ctx, ['tables', 'create', 'Leads']);
  assert.match(table.id, /^tbl_/);
  const human = await stk(ctx, ['tables', 'list']);
  assert.is(human.code, 0, human.stderr);
  assert.match(human.stdout, /Leads/);
  assert.match(human.stdout, new RegExp(table.id));
  assert.is((await json(ctx, ['tables', 'get', table.id])).name, 'Leads');
  assert.is((await json(ctx, ['tables', 'rename', table.id, 'Prospects'])).name, 'Prospects');
  const listed = await json(ctx, ['tables', 'list', '--all', '--limit', '1']);
  assert.equal(
    listed.data.map((t: { name: string }) => t.name),
    ['Prospects'],
  );
  const missing = await stk(ctx, ['tables', 'get', 'tbl_nope']);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /404/);

  const doomed = await json(ctx, ['tables', 'create', 'Doomed']);
  assert.equal(
    (await json(ctx, ['tables', 'list', '--name', 'doom'])).data.map((t: { id: string }) => t.id),
    [doomed.id],
  );
  assert.equal(await json(ctx, ['tables', 'delete', doomed.id]), { deleted: doomed.id });
  const gone = await stk(ctx, ['tables', 'get', doomed.id]);
  assert.is(gone.code, 1);
  assert.match(gone.stderr, /404/);
});

test('stk columns create | list | get | patch | reorder | history | delete', async (ctx) => {
  const table = await json(ctx, ['tables', 'create', 'CLI columns']);
  const domain = await json(ctx, [
    'columns',
    'create',
    table.id,
    '--label',
    'Domain',
    '--kind',
    'input',
    '--data-type',
    'url',
  ]);
  assert.is(domain.key, 'domain');
  const conditionFile = join(ctx.dir, 'condition.json');
  const condition = {
    type: 'all',
    children: [{ type: 'condition', columnKey: 'domain', operator: 'isNotEmpty', missingPolicy: 'false' }],
  };
  await writeFile(conditionFile, JSON.stringify(condition));
  const summary = await json(ctx, [
    'columns',
    'create',
    table.id,
    '--label',
    'Summary',
    '--kind',
    'enrichment',
    '--data-type',
    'text',
    '--config',
    '{"provider":"llm","mode":"basic"}',
    '--run-condition',
    `@${conditionFile}`,
  ]);
  assert.equal(summary.config, { provider: 'llm', mode: 'basic', runCondition: condition });

  const listed = await stk(ctx, ['columns', 'list', table.id]);
  assert.is(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /domain[\s\S]*summary/);

  const patched = await json(ctx, [
    'columns',
    'patch',
    table.id,
    summary.id,
    '--label',
    'Short summary',
    '--position',
    '0.5',
    '--auto-run',
    'onInsert',
    '--important',
    '--config',
    '{"mode":"advanced","llmLane":"very_fast"}',
    '--run-condition',
    'null',
  ]);
  assert.is(patched.label, 'Short summary');
  assert.is(patched.position, 0.5);
  assert.is(patched.autoRun, 'onInsert');
  assert.is(patched.isImportant, true);
  assert.equal(patched.config, { provider: 'llm', mode: 'advanced', llmLane: 'very_fast' });
  assert.is(
    (await json(ctx, ['columns', 'patch', table.id, summary.id, '--no-important'])).isImportant,
    false,
  );
  assert.equal((await json(ctx, ['columns', 'get', table.id, summary.id])).label, 'Short summary');

  const invalid = await stk(ctx, [
    'columns',
    'patch',
    table.id,
    summary.id,
    '--run-condition',
    '{"type":"condition","columnKey":"domain","operator":"between","missingPolicy":"true","value":1}',
  ]);
  assert.is(invalid.code, 1);
  assert.match(invalid.stderr, /config\.runCondition\.value2/);
  assert.is((await stk(ctx, ['columns', 'patch', table.id, summary.id])).code, 2);
  assert.is((await stk(ctx, ['columns', 'patch', table.id, summary.id, '--config', '{oops'])).code, 2);

  const reordered = await json(ctx, ['columns', 'reorder', table.id, domain.id, summary.id]);
  assert.equal(
    reordered.map((c: { id: string; position: number }) => [c.id, c.position]),
    [
      [domain.id, 1],
      [summary.id, 2],
    ],
  );
  const history = await json(ctx, ['columns', 'history', table.id, summary.id]);
  assert.equal(
    history.data.map((h: { type: string }) => h.type),
    ['ColumnCreated', 'ColumnPatched', 'ColumnPatched', 'ColumnMoved'],
  );

  await json(ctx, ['columns', 'patch', table.id, summary.id, '--run-condition', `@${conditionFile}`]);
  const refused = await stk(ctx, ['columns', 'delete', table.id, domain.id]);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /column_in_use/);
  assert.is((await stk(ctx, ['columns', 'delete', table.id, summary.id])).code, 0);
  assert.is((await stk(ctx, ['columns', 'delete', table.id, domain.id])).code, 0);
  assert.equal(await json(ctx, ['columns', 'list', table.id]), []);
});

test.run();
