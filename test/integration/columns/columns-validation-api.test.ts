import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { columnsPath, createColumn, createTable, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('columns API: config validation over HTTP and the OpenAPI document');

test('PATCH: provider config is validated after the merge, against the table', async ({
  t,
  key,
  otherKey,
}) => {
  const tableId = await createTable(t.app, key);
  await createColumn(t.app, key, tableId, { label: 'Domain', kind: 'input', dataType: 'url' });
  const col = await createColumn(t.app, key, tableId, {
    label: 'Call',
    kind: 'enrichment',
    dataType: 'json',
    config: { provider: 'http_request', url: 'https://api.example.com/{{domain}}', method: 'GET' },
  });
  assert.is(col.config.timeoutSeconds, 30);
  const url = `${columnsPath(tableId)}/${col.id}`;
  const patch = (config: object) => call(t.app, 'PATCH', url, { headers: bearer(key), body: { config } });

  const ok = await patch({
    headers: { Authorization: 'Bearer {{secrets.api_token}}' },
    body: { q: '{{domain}}' },
  });
  assert.is(ok.status, 200, JSON.stringify(ok.body));
  assert.is(ok.body.config.url, 'https://api.example.com/{{domain}}');

  const bad = await patch({ method: 'FETCH', timeoutSeconds: 301, body: { q: '{{nope}}' } });
  assert.is(bad.status, 400);
  const paths = bad.body.errors.map((e: { path: string }) => e.path).sort();
  assert.equal(paths, ['config.method', 'config.timeoutSeconds']);
  const placeholder = await patch({ body: { q: '{{nope}}' } });
  assert.equal(
    placeholder.body.errors.map((e: { path: string }) => e.path),
    ['config.body.q'],
  );
  const unknownKey = await patch({ retries: 3 });
  assert.is(unknownKey.status, 400);

  const theirs = await createTable(t.app, otherKey, 'theirs');
  const sync = await createColumn(t.app, key, tableId, {
    label: 'Sync',
    kind: 'action',
    dataType: 'json',
    config: { provider: 'sync_to_table', destinationTableId: await createTable(t.app, key, 'dest') },
  });
  const foreign = await call(t.app, 'PATCH', `${columnsPath(tableId)}/${sync.id}`, {
    headers: bearer(key),
    body: { config: { destinationTableId: theirs } },
  });
  assert.is(foreign.status, 400);
  assert.is(foreign.body.errors[0].path, 'config.destinationTableId');
});

test('the OpenAPI document publishes kinds, data types, operators and config schemas', async ({ t }) => {
  const doc = (await call(t.app, 'GET', '/openapi.json')).body;
  const schemas = doc.components.schemas;
  for (const name of [
    'RunCondition',
    'RunConditionOperator',
    'FilterObject',
    'HttpRequestConfig',
    'SyncToTableConfig',
  ]) {
    assert.ok(schemas[name] ?? schemas[`${name}Input`], name);
  }
  const operator = schemas.RunConditionOperator ?? schemas.RunConditionOperatorInput;
  assert.ok(operator.enum.includes('dateBetween'));
  assert.is(operator['x-value-rules'].between, 'numberRange');
  const create =
    doc.paths['/api/tables/{tableId}/columns'].post.requestBody.content['application/json'].schema;
  assert.ok(create.properties.kind.enum.includes('enrichment'));
  assert.ok(create.properties.kind.enum.includes('input'));
  for (const type of ['text', 'number', 'boolean', 'date', 'url', 'email', 'json']) {
    assert.ok(create.properties.dataType.enum.includes(type), type);
  }
});

test.run();
