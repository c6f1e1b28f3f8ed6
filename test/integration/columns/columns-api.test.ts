import * as assert from 'uvu/assert';
import { columnStream } from '../../../src/domain/columns/column-state.ts';
import { newColumnId, newTableId } from '../../../src/domain/tables/ids.ts';
import { tableStream } from '../../../src/domain/tables/table-state.ts';
import { bearer, call, issueKey } from '../../support/accounts.ts';
import { thenAppended, whenRequest } from '../../support/api-spec.ts';
import { COLUMN_DEFAULTS, columnCreated } from '../../support/column-events.ts';
import { columnsPath, createColumn, createTable, leaf, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('columns API: create, list, get, PATCH, errors');

test('create: defaults, key derived from the label, status idle, position after the last', async ({
  t,
  key,
  keyId,
}) => {
  const tableId = await createTable(t.app, key);
  const when = await whenRequest(t, 'POST', columnsPath(tableId), {
    headers: bearer(key),
    body: { label: 'Company Name', kind: 'input', dataType: 'text' },
  });
  const res = when.answer;
  assert.is(res.status, 201);
  assert.match(res.body.id, /^col_[0-9a-z]{20}$/);
  // The key claimed on the table's stream, then the column on its own.
  const claim = { tableId, columnId: res.body.id, key: 'company_name', kind: 'input', dataType: 'text' };
  thenAppended(when, keyId, [
    { stream: tableStream.name(tableId), type: 'ColumnAdded', data: claim },
    {
      stream: columnStream.name(tableId, res.body.id),
      ...columnCreated(tableId, res.body.id, { key: 'company_name', label: 'Company Name', position: 1 }),
    },
  ]);
  assert.equal(
    { ...res.body, id: undefined },
    {
      id: undefined,
      key: 'company_name',
      label: 'Company Name',
      kind: 'input',
      dataType: 'text',
      ...COLUMN_DEFAULTS,
      position: 1,
    },
  );
  assert.ok(res.headers.etag);
  const second = await createColumn(t.app, key, tableId, { label: 'Domain', kind: 'input', dataType: 'url' });
  assert.is(second.position, 2);
  const third = await createColumn(t.app, key, tableId, {
    label: 'Summary',
    key: 'summary_1',
    kind: 'enrichment',
    dataType: 'text',
    origin: 'ui',
    autoRun: 'onInsert',
    position: 1.5,
    isImportant: true,
    config: {
      provider: 'llm',
      mode: 'basic',
      promptSource: 'generated',
      llmLane: 'very_fast',
      extra: { a: 1 },
    },
  });
  assert.is(third.key, 'summary_1');
  assert.is(third.autoRun, 'onInsert');
  assert.equal(third.config.extra, { a: 1 });
  const list = await call(t.app, 'GET', columnsPath(tableId), { headers: bearer(key) });
  assert.is(list.status, 200);
  assert.ok(Array.isArray(list.body));
  assert.equal(
    list.body.map((c: { key: string }) => c.key),
    ['company_name', 'summary_1', 'domain'],
  );
  const one = await call(t.app, 'GET', `${columnsPath(tableId)}/${third.id}`, { headers: bearer(key) });
  assert.is(one.status, 200);
  assert.equal(one.body, third);
});

test('create: 400 for a bad key, kind or dataType, naming the path; 409 for a taken key', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key);
  await createColumn(t.app, key, tableId, { label: 'Email', kind: 'input', dataType: 'email' });
  const cases: [object, string][] = [
    [{ label: 'x', key: 'Bad-Key', kind: 'input', dataType: 'text' }, 'key'],
    [{ label: 'x', key: '1abc', kind: 'input', dataType: 'text' }, 'key'],
    [{ label: 'x', kind: 'nope', dataType: 'text' }, 'kind'],
    [{ label: 'x', kind: 'input', dataType: 'float' }, 'dataType'],
    [{ kind: 'input', dataType: 'text' }, 'label'],
    [{ label: 'x', kind: 'input', dataType: 'text', autoRun: 'always' }, 'autoRun'],
  ];
  for (const [body, path] of cases) {
    const res = await call(t.app, 'POST', columnsPath(tableId), { headers: bearer(key), body });
    assert.is(res.status, 400, JSON.stringify(body));
    assert.ok(
      res.body.errors.some((e: { path: string }) => e.path === path),
      JSON.stringify(res.body.errors),
    );
  }
  for (const body of [
    { label: 'Other', key: 'email', kind: 'input', dataType: 'text' },
    { label: 'Email', kind: 'input', dataType: 'text' },
  ]) {
    const res = await call(t.app, 'POST', columnsPath(tableId), { headers: bearer(key), body });
    assert.is(res.status, 409);
    assert.is(res.body.code, 'column_key_taken');
  }
});

test('PATCH: each field (ColumnPatched with what changed), config merged one level deep, GET right after shows it', async ({
  t,
  key,
  keyId,
}) => {
  const tableId = await createTable(t.app, key);
  await createColumn(t.app, key, tableId, { label: 'Score', kind: 'input', dataType: 'number' });
  const col = await createColumn(t.app, key, tableId, {
    label: 'Summary',
    kind: 'enrichment',
    dataType: 'text',
    config: { provider: 'llm', mode: 'basic', llmLane: 'very_fast', keep: 1 },
  });
  const url = `${columnsPath(tableId)}/${col.id}`;
  const condition = { type: 'all', children: [leaf('score', 'greaterThan', { value: 10 })] };
  const changes = {
    label: 'Short summary',
    position: 7.25,
    isImportant: true,
    autoRun: 'onSourceUpdate',
    config: { mode: 'advanced', llmLane: null, runCondition: condition },
  };
  const when = await whenRequest(t, 'PATCH', url, { headers: bearer(key), body: changes });
  const res = when.answer;
  assert.is(res.status, 200, JSON.stringify(res.body));
  const stream = columnStream.name(tableId, col.id);
  thenAppended(when, keyId, [
    { stream, type: 'ColumnPatched', data: { tableId, columnId: col.id, changes } },
  ]);
  assert.is(res.body.label, 'Short summary');
  assert.is(res.body.position, 7.25);
  assert.is(res.body.isImportant, true);
  assert.is(res.body.autoRun, 'onSourceUpdate');
  assert.equal(res.body.config, { provider: 'llm', mode: 'advanced', keep: 1, runCondition: condition });
  const got = await call(t.app, 'GET', url, { headers: bearer(key) });
  assert.equal(got.body, res.body);
  assert.is(got.headers.etag, res.headers.etag);

  // runCondition is replaced whole, and null removes it.
  const replaced = { type: 'not', children: [leaf('score', 'isEmpty')] };
  const second = await call(t.app, 'PATCH', url, {
    headers: bearer(key),
    body: { config: { runCondition: replaced } },
  });
  assert.equal(second.body.config.runCondition, replaced);
  const removal = { config: { runCondition: null } };
  const removing = await whenRequest(t, 'PATCH', url, { headers: bearer(key), body: removal });
  const removed = removing.answer;
  assert.is(removed.status, 200);
  assert.not.ok('runCondition' in removed.body.config);
  assert.equal((await call(t.app, 'GET', url, { headers: bearer(key) })).body.config, removed.body.config);
  thenAppended(removing, keyId, [
    { stream, type: 'ColumnPatched', data: { tableId, columnId: col.id, changes: removal } },
  ]);
  // The same PATCH again changes nothing, so it appends nothing.
  const again = await whenRequest(t, 'PATCH', url, { headers: bearer(key), body: removal });
  assert.is(again.answer.status, 200);
  assert.equal(again.answer.body, removed.body);
  thenAppended(again, keyId, []);
});

test('If-Match: the current ETag passes, a stale one gets 412', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  const col = await createColumn(t.app, key, tableId, { label: 'A', kind: 'input', dataType: 'text' });
  const url = `${columnsPath(tableId)}/${col.id}`;
  const etag = (await call(t.app, 'GET', url, { headers: bearer(key) })).headers.etag!;
  const first = await call(t.app, 'PATCH', url, {
    headers: { ...bearer(key), 'if-match': etag },
    body: { label: 'B' },
  });
  assert.is(first.status, 200);
  assert.is.not(first.headers.etag, etag);
  const stale = await call(t.app, 'PATCH', url, {
    headers: { ...bearer(key), 'if-match': etag },
    body: { label: 'C' },
  });
  assert.is(stale.status, 412);
  assert.is(stale.body.code, 'precondition_failed');
  assert.is((await call(t.app, 'GET', url, { headers: bearer(key) })).body.label, 'B');
  const any = await call(t.app, 'PATCH', url, {
    headers: { ...bearer(key), 'if-match': '*' },
    body: { label: 'D' },
  });
  assert.is(any.status, 200);
});

test('401, 403 (scope, organization) and 404 (table, column, wrong form) as contract section 7', async ({
  t,
  key,
  otherKey,
}) => {
  const tableId = await createTable(t.app, key);
  const col = await createColumn(t.app, key, tableId, { label: 'A', kind: 'input', dataType: 'text' });
  const otherTable = await createTable(t.app, key, 'other');
  const otherCol = await createColumn(t.app, key, otherTable, {
    label: 'A',
    kind: 'input',
    dataType: 'text',
  });
  const url = `${columnsPath(tableId)}/${col.id}`;
  const body = { label: 'x' };

  assert.is((await call(t.app, 'GET', columnsPath(tableId))).status, 401);
  assert.is((await call(t.app, 'PATCH', url, { body })).status, 401);
  assert.is((await call(t.app, 'PATCH', url, { headers: bearer('stk_x.y'), body })).status, 401);

  const readOnly = (await issueKey(t.app, key, ['tables:read'])).apiKey;
  const denied = await call(t.app, 'PATCH', url, { headers: bearer(readOnly), body });
  assert.is(denied.status, 403);
  assert.is(denied.body.code, 'missing_scope');
  assert.is((await call(t.app, 'GET', columnsPath(tableId), { headers: bearer(readOnly) })).status, 200);
  const writeOnly = (await issueKey(t.app, key, ['columns:write'])).apiKey;
  assert.is((await call(t.app, 'GET', columnsPath(tableId), { headers: bearer(writeOnly) })).status, 403);
  assert.is((await call(t.app, 'PATCH', url, { headers: bearer(writeOnly), body })).status, 200);

  // The body each request needs to get past validation, so that the answer is about access.
  const bodyFor = (method: string, path: string) =>
    method === 'PATCH'
      ? body
      : method !== 'POST'
        ? undefined
        : path.endsWith('/reorder')
          ? { columnIds: [col.id] }
          : { label: 'x', kind: 'input', dataType: 'text' };
  for (const [method, path] of [
    ['GET', columnsPath(tableId)],
    ['GET', url],
    ['PATCH', url],
    ['DELETE', url],
    ['GET', `${url}/history`],
    ['POST', columnsPath(tableId)],
    ['POST', `${columnsPath(tableId)}/reorder`],
  ] as const) {
    const res = await call(t.app, method, path, { headers: bearer(otherKey), body: bodyFor(method, path) });
    assert.is(res.status, 403, `${method} ${path}`);
    assert.is(res.body.code, 'forbidden');
  }

  const notFound = [
    ['GET', columnsPath(newTableId())],
    ['GET', columnsPath('nope')],
    ['GET', `${columnsPath(tableId)}/${newColumnId()}`],
    ['GET', `${columnsPath(tableId)}/${otherCol.id}`],
    ['GET', `${columnsPath(tableId)}/col_bad`],
    ['GET', `${columnsPath(tableId)}/col_${'x'.repeat(90)}`],
    ['GET', `/api/tables/tbl_${'x'.repeat(90)}`],
    ['PATCH', `${columnsPath(newTableId())}/${col.id}`],
    ['PATCH', `${columnsPath(tableId)}/${newColumnId()}`],
    ['PATCH', `${columnsPath(tableId)}/${otherCol.id}`],
    ['PATCH', `${columnsPath(tableId)}/whatever`],
    ['DELETE', `${columnsPath(tableId)}/${otherCol.id}`],
    ['GET', `${columnsPath(tableId)}/${otherCol.id}/history`],
    ['POST', columnsPath(newTableId())],
    ['POST', columnsPath('nope')],
    ['POST', `${columnsPath(newTableId())}/reorder`],
  ] as const;
  for (const [method, path] of notFound) {
    const res = await call(t.app, method, path, { headers: bearer(key), body: bodyFor(method, path) });
    assert.is(res.status, 404, `${method} ${path}`);
    assert.is(res.body.code, 'not_found');
  }
});

test.run();
