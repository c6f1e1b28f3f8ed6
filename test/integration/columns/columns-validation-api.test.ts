import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { columnsPath, createColumn, createTable, leaf, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('columns API: config validation over HTTP and the OpenAPI document');

test('PATCH: run condition errors name each offending path', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  await createColumn(t.app, key, tableId, { label: 'Score', kind: 'input', dataType: 'number' });
  const col = await createColumn(t.app, key, tableId, { label: 'B', kind: 'enrichment', dataType: 'text' });
  const url = `${columnsPath(tableId)}/${col.id}`;
  const send = (runCondition: unknown) =>
    call(t.app, 'PATCH', url, { headers: bearer(key), body: { config: { runCondition } } });

  const between = await send({
    type: 'any',
    children: [leaf('score', 'isNotEmpty'), leaf('score', 'between', { value: 1 })],
  });
  assert.is(between.status, 400);
  assert.ok(
    between.body.errors.some((e: { path: string }) => e.path === 'config.runCondition.children[1].value2'),
  );

  const unknownColumn = await send({ type: 'all', children: [leaf('nope', 'isEmpty')] });
  assert.is(unknownColumn.status, 400);
  assert.equal(
    unknownColumn.body.errors.map((e: { path: string }) => e.path),
    ['config.runCondition.children[0].columnKey'],
  );

  const deep = (n: number): unknown =>
    n === 1 ? leaf('score', 'isEmpty') : { type: 'not', children: [deep(n - 1)] };
  assert.is((await send(deep(20))).status, 200);
  const tooDeep = await send(deep(21));
  assert.is(tooDeep.status, 400);
  assert.is(tooDeep.body.errors[0].path, 'config.runCondition');
  const wide = (n: number) => ({
    type: 'any',
    children: Array.from({ length: n }, () => leaf('score', 'isEmpty')),
  });
  assert.is((await send(wide(499))).status, 200);
  assert.is((await send(wide(500))).status, 400);
  // Built as text: nesting this deep is beyond what JSON.stringify takes, but not beyond a client.
  const nested = '{"type":"not","children":['.repeat(10_000) + '{}' + ']}'.repeat(10_000);
  const hostile = await t.app.inject({
    method: 'PATCH',
    url,
    headers: { ...bearer(key), 'content-type': 'application/json' },
    payload: `{"config":{"runCondition":${nested}}}`,
  });
  assert.is(hostile.statusCode, 400);
  // Refused at the edge (nesting past 64 levels), at the path where the limit was crossed.
  assert.match(hostile.json().errors[0].path, /^config\.runCondition\.children\[0\]/);
});

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
