import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { createPrompt, promptPath } from '../../support/prompts.ts';
import { columnsPath, createColumn, createTable, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('prompts: llm columns name a template; a template in use is not deleted');

const paths = (body: { errors?: { path: string }[] }) => (body.errors ?? []).map((e) => e.path).sort();

/** A table with the columns `name` and `company`. */
async function tableWithInputs(target: Parameters<typeof createTable>[0], key: string) {
  const tableId = await createTable(target, key);
  for (const label of ['Name', 'Company'])
    await createColumn(target, key, tableId, { label, kind: 'input', dataType: 'text' });
  return tableId;
}

const llm = (config: object) => ({
  label: 'Summary',
  kind: 'enrichment',
  dataType: 'text',
  config: { provider: 'llm', ...config },
});

test('a template whose variables are column keys may be named, pinned or not; anything else is a 400 naming the field', async ({
  t,
  key,
  otherKey,
}) => {
  const tableId = await tableWithInputs(t.app, key);
  const fits = await createPrompt(t.app, key, { name: 'Fits', template: 'About {{company}} for {{name}}' });
  const column = await createColumn(t.app, key, tableId, llm({ promptTemplateId: fits.id }));
  assert.equal(column.config, { provider: 'llm', promptTemplateId: fits.id });
  const pinned = await createColumn(t.app, key, tableId, {
    ...llm({ promptTemplateId: fits.id, promptVersion: 1 }),
    label: 'Pinned',
  });
  assert.is(pinned.config.promptVersion, 1);

  const strays = await createPrompt(t.app, key, { name: 'Strays', template: '{{name}} and {{industry}}' });
  const theirs = await createPrompt(t.app, otherKey, { name: 'Theirs', template: '{{name}}' });
  const cases: [object, string[]][] = [
    [{ promptTemplateId: strays.id }, ['config.promptTemplateId']],
    [{ promptTemplateId: theirs.id }, ['config.promptTemplateId']],
    [{ promptTemplateId: 'prm_00000000000000000000' }, ['config.promptTemplateId']],
    [{ promptTemplateId: 'not-an-id' }, ['config.promptTemplateId']],
    [{ promptTemplateId: fits.id, promptVersion: 2 }, ['config.promptVersion']],
    [{ promptVersion: 1 }, ['config.promptVersion']],
    [{ promptTemplateId: fits.id, prompt: 'Hi {{name}}' }, ['config.promptTemplateId']],
    [{ promptTemplateId: fits.id, promptVersion: 0 }, ['config.promptVersion']],
  ];
  for (const [config, expected] of cases) {
    const res = await call(t.app, 'POST', columnsPath(tableId), {
      headers: bearer(key),
      body: { ...llm(config), label: 'Bad' },
    });
    assert.is(res.status, 400, JSON.stringify(config));
    assert.equal(paths(res.body), expected, JSON.stringify(config));
  }
  const strayRes = await call(t.app, 'POST', columnsPath(tableId), {
    headers: bearer(key),
    body: { ...llm({ promptTemplateId: strays.id }), label: 'Bad' },
  });
  assert.match(strayRes.body.errors[0].message, /variable industry names no column/);
});

test('PATCH: a pinned version alone is checked against the template the column names', async ({ t, key }) => {
  const tableId = await tableWithInputs(t.app, key);
  const p = await createPrompt(t.app, key, { name: 'Pin me', template: '{{name}}' });
  await call(t.app, 'PATCH', promptPath(p.id), {
    headers: bearer(key),
    body: { template: '{{name}} at {{company}}' },
  });
  const column = await createColumn(t.app, key, tableId, llm({ promptTemplateId: p.id }));
  const patch = (config: object) =>
    call(t.app, 'PATCH', `${columnsPath(tableId)}/${column.id}`, { headers: bearer(key), body: { config } });
  const bad = await patch({ promptVersion: 3 });
  assert.is(bad.status, 400);
  assert.equal(paths(bad.body), ['config.promptVersion']);
  assert.match(bad.body.errors[0].message, /no version 3 \(its latest is 2\)/);
  const ok = await patch({ promptVersion: 1 });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.is(ok.body.config.promptVersion, 1);
});

test('DELETE of a template a column names: 409 prompt_in_use listing the columns; once unnamed, 204', async ({
  t,
  key,
}) => {
  const tableId = await tableWithInputs(t.app, key);
  const p = await createPrompt(t.app, key, { name: 'In use', template: '{{company}}' });
  const column = await createColumn(t.app, key, tableId, llm({ promptTemplateId: p.id }));
  const refused = await call(t.app, 'DELETE', promptPath(p.id), { headers: bearer(key) });
  assert.is(refused.status, 409);
  assert.is(refused.body.code, 'prompt_in_use');
  assert.equal(refused.body.referencedBy, [{ tableId, columnId: column.id, key: 'summary' }]);
  assert.is((await call(t.app, 'GET', promptPath(p.id), { headers: bearer(key) })).status, 200);
  const unnamed = await call(t.app, 'PATCH', `${columnsPath(tableId)}/${column.id}`, {
    headers: bearer(key),
    body: { config: { promptTemplateId: null } },
  });
  assert.is(unnamed.status, 200, JSON.stringify(unnamed.body));
  assert.is((await call(t.app, 'DELETE', promptPath(p.id), { headers: bearer(key) })).status, 204);
});

test.run();
