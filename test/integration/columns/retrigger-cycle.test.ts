import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { columnsPath, createColumn, createTable, tablesSuite } from '../../support/tables.ts';

/*
 * Issue 15, item 5: columns that would re-run each other for ever on source updates are refused when
 * the config or autoRun that closes the cycle is saved (400 naming the cycle), and nothing is stored.
 * A column reading its own output (no cycle) is an in-memory spec: test/unit/columns/columns-api.test.ts.
 */
const test = tablesSuite('columns: an auto-run cycle is refused at config time');

const fetchOf = (key: string, autoRun = 'onSourceUpdate') => ({
  label: key.toUpperCase(),
  key,
  kind: 'enrichment',
  dataType: 'text',
  autoRun,
  config: { provider: 'http_request', method: 'GET', url: 'https://example.com/{{name}}' },
});
const reading = (source: string) => ({
  provider: 'http_request',
  method: 'GET',
  url: `https://example.com/lookup?q={{${source}}}`,
});

async function tableWithName(t: { app: never } | { app: unknown }, key: string) {
  const tableId = await createTable(t as never, key);
  await createColumn(t as never, key, tableId, {
    label: 'Name',
    key: 'name',
    kind: 'input',
    dataType: 'text',
  });
  return tableId;
}

test('a PATCH closing a cycle of onSourceUpdate columns is a 400 naming it, and changes nothing', async ({
  t,
  key,
}) => {
  const tableId = await tableWithName(t, key);
  const a = await createColumn(t.app, key, tableId, fetchOf('a'));
  await createColumn(t.app, key, tableId, { ...fetchOf('b'), config: reading('a') });
  const url = `${columnsPath(tableId)}/${a.id}`;
  const refused = await call(t.app, 'PATCH', url, { headers: bearer(key), body: { config: reading('b') } });
  assert.is(refused.status, 400, JSON.stringify(refused.body));
  assert.is(refused.body.code, 'validation_failed');
  assert.match(refused.body.detail, /a -> b -> a|b -> a -> b/);
  assert.equal(
    refused.body.errors.map((e: { path: string }) => e.path),
    ['autoRun'],
  );
  const after = await call(t.app, 'GET', url, { headers: bearer(key) });
  assert.is(after.body.config.url, 'https://example.com/{{name}}');
});

test('the same reads without a cycle of re-runs are allowed; enabling the loop later is refused', async ({
  t,
  key,
}) => {
  const tableId = await tableWithName(t, key);
  const a = await createColumn(t.app, key, tableId, fetchOf('a'));
  // b re-runs only on insert: a writing b's source does not start b, so a may read b.
  const b = await createColumn(t.app, key, tableId, { ...fetchOf('b', 'onInsert'), config: reading('a') });
  const patched = await call(t.app, 'PATCH', `${columnsPath(tableId)}/${a.id}`, {
    headers: bearer(key),
    body: { config: reading('b') },
  });
  assert.is(patched.status, 200, JSON.stringify(patched.body));
  const loop = await call(t.app, 'PATCH', `${columnsPath(tableId)}/${b.id}`, {
    headers: bearer(key),
    body: { autoRun: 'onSourceUpdate' },
  });
  assert.is(loop.status, 400);
  assert.match(loop.body.detail, /b -> a -> b|a -> b -> a/);
  assert.is(
    (await call(t.app, 'GET', `${columnsPath(tableId)}/${b.id}`, { headers: bearer(key) })).body.autoRun,
    'onInsert',
  );
});

test('a new column that closes a cycle through a prompt naming it ahead of time is refused and not created', async ({
  t,
  key,
}) => {
  const tableId = await tableWithName(t, key);
  await createColumn(t.app, key, tableId, {
    label: 'P',
    key: 'p',
    kind: 'enrichment',
    dataType: 'text',
    autoRun: 'onSourceUpdate',
    config: { provider: 'llm', prompt: 'Summarise {{q}}' },
  });
  const refused = await call(t.app, 'POST', columnsPath(tableId), {
    headers: bearer(key),
    body: { ...fetchOf('q'), config: reading('p') },
  });
  assert.is(refused.status, 400, JSON.stringify(refused.body));
  assert.match(refused.body.detail, /p -> q -> p|q -> p -> q/);
  const list = await call(t.app, 'GET', columnsPath(tableId), { headers: bearer(key) });
  assert.equal(
    list.body.map((c: { key: string }) => c.key),
    ['name', 'p'],
  );
  // The key was not kept claimed by the refused column.
  const again = await call(t.app, 'POST', columnsPath(tableId), {
    headers: bearer(key),
    body: { ...fetchOf('q', 'never'), config: reading('p') },
  });
  assert.is(again.status, 201, JSON.stringify(again.body));
});

test.run();
