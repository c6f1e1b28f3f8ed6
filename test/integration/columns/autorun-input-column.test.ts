import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { columnsPath, createColumn, createTable, tablesSuite } from '../../support/tables.ts';

/*
 * Issue 34, item 10: autoRun on a column with no provider (an input column) was accepted and never did
 * anything. It is a 400 naming the field and saying why, on create and on PATCH.
 */
const test = tablesSuite('columns API: autoRun needs a provider');

const HTTP = { provider: 'http_request', method: 'GET', url: 'https://api.example.com/{{domain}}' };

// biome-ignore lint/suspicious/noExplicitAny: an answer's body is arbitrary JSON that tests pick apart
function refusedAt(res: { status: number; body: any }, path: string, autoRun: string) {
  assert.is(res.status, 400, JSON.stringify(res.body));
  assert.is(res.body.code, 'validation_failed');
  assert.equal(
    res.body.errors.map((e: { path: string }) => e.path),
    [path],
  );
  const message: string = res.body.errors[0].message;
  assert.match(message, autoRun);
  assert.match(message, 'config.provider');
  assert.match(message, 'nothing');
  assert.match(res.body.detail, path);
}

test('create: an input column with autoRun onInsert or onSourceUpdate is a 400 at autoRun; nothing is stored', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  for (const autoRun of ['onInsert', 'onSourceUpdate']) {
    for (const config of [undefined, {}, { note: 'no provider' }]) {
      const res = await call(t.app, 'POST', columnsPath(tableId), {
        headers: bearer(key),
        body: { label: 'Domain', key: 'domain', kind: 'input', dataType: 'text', autoRun, config },
      });
      refusedAt(res, 'autoRun', autoRun);
    }
  }
  const list = await call(t.app, 'GET', columnsPath(tableId), { headers: bearer(key) });
  assert.equal(list.body.items ?? list.body, []);
  // never (the default) is fine, and so is autoRun with a provider.
  const input = await createColumn(t.app, key, tableId, {
    label: 'Domain',
    kind: 'input',
    dataType: 'text',
    autoRun: 'never',
  });
  assert.is(input.autoRun, 'never');
  const fetch = await createColumn(t.app, key, tableId, {
    label: 'Fetch',
    kind: 'enrichment',
    dataType: 'json',
    autoRun: 'onInsert',
    config: HTTP,
  });
  assert.is(fetch.autoRun, 'onInsert');
});

test('patch: autoRun on an input column, or removing the provider of one that auto-runs, is a 400; nothing changes', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  const input = await createColumn(t.app, key, tableId, {
    label: 'Domain',
    key: 'domain',
    kind: 'input',
    dataType: 'text',
  });
  const inputUrl = `${columnsPath(tableId)}/${input.id}`;
  const patch = (url: string, body: object) => call(t.app, 'PATCH', url, { headers: bearer(key), body });

  refusedAt(await patch(inputUrl, { autoRun: 'onInsert' }), 'autoRun', 'onInsert');
  refusedAt(await patch(inputUrl, { label: 'Site', autoRun: 'onSourceUpdate' }), 'autoRun', 'onSourceUpdate');
  const unchanged = await call(t.app, 'GET', inputUrl, { headers: bearer(key) });
  assert.equal([unchanged.body.label, unchanged.body.autoRun], ['Domain', 'never']);
  assert.is((await patch(inputUrl, { autoRun: 'never', label: 'Site' })).status, 200);
  // Giving it a provider in the same PATCH makes autoRun meaningful.
  const converted = await patch(inputUrl, {
    autoRun: 'onInsert',
    config: { ...HTTP, url: 'https://a.test/' },
  });
  assert.is(converted.status, 200, JSON.stringify(converted.body));
  assert.is(converted.body.autoRun, 'onInsert');

  const fetch = await createColumn(t.app, key, tableId, {
    label: 'Fetch',
    kind: 'enrichment',
    dataType: 'json',
    autoRun: 'onInsert',
    config: HTTP,
  });
  const fetchUrl = `${columnsPath(tableId)}/${fetch.id}`;
  const removed = await patch(fetchUrl, { config: { provider: null, method: null, url: null } });
  assert.is(removed.status, 400, JSON.stringify(removed.body));
  assert.equal(
    removed.body.errors.map((e: { path: string }) => e.path),
    ['config.provider'],
  );
  assert.match(removed.body.errors[0].message, 'autoRun onInsert');
  const kept = await call(t.app, 'GET', fetchUrl, { headers: bearer(key) });
  assert.equal([kept.body.autoRun, kept.body.config.provider], ['onInsert', 'http_request']);
  // Removing both at once is fine: the column becomes an input column that runs nothing.
  const both = await patch(fetchUrl, {
    autoRun: 'never',
    config: { provider: null, method: null, url: null },
  });
  assert.is(both.status, 200, JSON.stringify(both.body));
  assert.equal([both.body.autoRun, both.body.config.provider], ['never', undefined]);
});

test.run();
