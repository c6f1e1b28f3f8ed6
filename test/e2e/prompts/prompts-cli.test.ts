import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { cliSuite } from '../../support/cli-suite.ts';

const { test, stk, json } = cliSuite('e2e: stk prompts against the running service');

test('create (template from a file) | update | versions | get --version | render | list', async (ctx) => {
  const file = join(ctx.dir, 'intro.txt');
  await writeFile(file, 'Dear {{who}}, {{tone}}.');
  const created = await json(ctx, [
    'prompts',
    'create',
    '--name',
    'Intro',
    '--template',
    `@${file}`,
    '--variables',
    '[{"name":"who"},{"name":"tone","default":"thanks"}]',
  ]);
  assert.is(created.version, 1);
  assert.is(created.template, 'Dear {{who}}, {{tone}}.');
  const updated = await json(ctx, ['prompts', 'update', created.id, '--template', 'Hi {{who}}']);
  assert.is(updated.version, 2);
  const versions = await json(ctx, ['prompts', 'versions', created.id, '--all', '--limit', '1']);
  assert.equal(
    versions.data.map((v: { version: number }) => v.version),
    [1, 2],
  );
  const first = await stk(ctx, ['prompts', 'get', created.id, '--version', '1']);
  assert.is(first.code, 0, first.stderr);
  assert.match(first.stdout, /Version:\s+1/);
  assert.match(first.stdout, /tone \(default "thanks"\)/);
  const rendered = await stk(ctx, ['prompts', 'render', created.id, '--var', 'who=Ada', '--version', '1']);
  assert.is(rendered.stdout, 'Dear Ada, thanks.\n');
  const list = await stk(ctx, ['prompts', 'list']);
  assert.match(list.stdout, new RegExp(`${created.id}\\s+2\\s+Intro\\s+who`));
});

test('errors: a missing variable, a taken name, a bad --var: the problem or the usage, not a stack', async (ctx) => {
  const p = await json(ctx, ['prompts', 'create', '--name', 'Needs', '--template', '{{a}} {{b}}']);
  const missing = await stk(ctx, ['prompts', 'render', p.id, '--var', 'a=1', '--var', 'c=2']);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /variables\.b: required, and not given/);
  assert.match(missing.stderr, /variables\.c: not a variable of this template/);
  assert.match(missing.stderr, /\(422 render_failed\)/);
  const taken = await stk(ctx, ['prompts', 'create', '--name', 'Needs', '--template', 'x']);
  assert.is(taken.code, 1);
  assert.match(taken.stderr, /\(409 prompt_name_taken\)/);
  assert.is((await stk(ctx, ['prompts', 'render', p.id, '--var', 'novalue'])).code, 2);
  assert.is((await stk(ctx, ['prompts', 'create', '--name', 'NoTemplate'])).code, 2);
  assert.is((await stk(ctx, ['prompts', 'update', p.id])).code, 2);
});

test.run();
