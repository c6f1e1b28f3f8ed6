import * as assert from 'uvu/assert';
import { tableStream } from '../../../src/domain/tables/table-state.ts';
import { bearer, call } from '../../support/accounts.ts';
import { thenAppended, whenRequest } from '../../support/api-spec.ts';
import { columnsPath, createColumn, createTable, leaf, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('columns API: delete, reorder, history');

test('DELETE refuses (409 column_in_use) while another column refers to it, then deletes (204, ColumnRemoved)', async ({
  t,
  key,
  keyId,
}) => {
  const tableId = await createTable(t.app, key);
  const domain = await createColumn(t.app, key, tableId, { label: 'Domain', kind: 'input', dataType: 'url' });
  const data = await createColumn(t.app, key, tableId, { label: 'Data', kind: 'input', dataType: 'json' });
  const gate = await createColumn(t.app, key, tableId, {
    label: 'Gate',
    kind: 'enrichment',
    dataType: 'text',
    config: { runCondition: { type: 'all', children: [leaf('domain', 'isNotEmpty')] } },
  });
  const call1 = await createColumn(t.app, key, tableId, {
    label: 'Call',
    kind: 'enrichment',
    dataType: 'json',
    config: { provider: 'http_request', method: 'POST', url: 'https://x.test/{{domain}}' },
  });
  const sync = await createColumn(t.app, key, tableId, {
    label: 'Sync',
    kind: 'action',
    dataType: 'json',
    config: {
      provider: 'sync_to_table',
      destinationTableId: await createTable(t.app, key, 'dest'),
      syncMode: 'list',
      listSourceColumnId: data.id,
    },
  });
  assert.is(sync.config.listPath, 'items');

  const refusing = await whenRequest(t, 'DELETE', `${columnsPath(tableId)}/${domain.id}`, {
    headers: bearer(key),
  });
  thenAppended(refusing, keyId, []);
  const refused = refusing.answer;
  assert.is(refused.status, 409);
  assert.is(refused.body.code, 'column_in_use');
  assert.equal(
    refused.body.referencedBy.map((r: { key: string; paths: string[] }) => [r.key, r.paths]).sort(),
    [
      ['call', ['config.url']],
      ['gate', ['config.runCondition.children[0].columnKey']],
    ],
  );
  const byId = await call(t.app, 'DELETE', `${columnsPath(tableId)}/${data.id}`, { headers: bearer(key) });
  assert.is(byId.status, 409);
  assert.equal(byId.body.referencedBy[0].paths, ['config.listSourceColumnId']);

  for (const c of [gate, call1]) {
    const gone = await call(t.app, 'DELETE', `${columnsPath(tableId)}/${c.id}`, { headers: bearer(key) });
    assert.is(gone.status, 204);
  }
  const deleting = await whenRequest(t, 'DELETE', `${columnsPath(tableId)}/${domain.id}`, {
    headers: bearer(key),
  });
  assert.is(deleting.answer.status, 204);
  thenAppended(deleting, keyId, [
    {
      stream: tableStream.name(tableId),
      type: 'ColumnRemoved',
      data: { tableId, columnId: domain.id, key: 'domain' },
    },
  ]);
  assert.is(
    (await call(t.app, 'GET', `${columnsPath(tableId)}/${domain.id}`, { headers: bearer(key) })).status,
    404,
  );
  assert.is(
    (await call(t.app, 'DELETE', `${columnsPath(tableId)}/${domain.id}`, { headers: bearer(key) })).status,
    404,
  );
  const patch = await call(t.app, 'PATCH', `${columnsPath(tableId)}/${domain.id}`, {
    headers: bearer(key),
    body: { label: 'x' },
  });
  assert.is(patch.status, 404);
  const list = (await call(t.app, 'GET', columnsPath(tableId), { headers: bearer(key) })).body;
  assert.equal(
    list.map((c: { key: string }) => c.key),
    ['data', 'sync'],
  );
  // The key is free again.
  const again = await createColumn(t.app, key, tableId, { label: 'Domain', kind: 'input', dataType: 'url' });
  assert.is(again.key, 'domain');
});

test('reorder: every column exactly once, positions 1..n; anything else is 400', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  const ids: string[] = [];
  for (const label of ['A', 'B', 'C']) {
    ids.push((await createColumn(t.app, key, tableId, { label, kind: 'input', dataType: 'text' })).id);
  }
  const [a, b, c] = ids as [string, string, string];
  const url = `${columnsPath(tableId)}/reorder`;
  const res = await call(t.app, 'POST', url, { headers: bearer(key), body: { columnIds: [c, a, b] } });
  assert.is(res.status, 200);
  assert.equal(
    res.body.map((col: { id: string; position: number }) => [col.id, col.position]),
    [
      [c, 1],
      [a, 2],
      [b, 3],
    ],
  );
  const list = (await call(t.app, 'GET', columnsPath(tableId), { headers: bearer(key) })).body;
  assert.equal(
    list.map((col: { id: string }) => col.id),
    [c, a, b],
  );
  for (const columnIds of [[a, b], [a, b, c, a], [a, b, 'col_nope'], []]) {
    const bad = await call(t.app, 'POST', url, { headers: bearer(key), body: { columnIds } });
    assert.is(bad.status, 400, JSON.stringify(columnIds));
    assert.is(bad.body.code, 'validation_failed');
  }
  const dup = await call(t.app, 'POST', url, { headers: bearer(key), body: { columnIds: [a, b, c, a] } });
  assert.equal(dup.body.errors[0].path, 'columnIds[3]');
});

test('history: oldest first, actor is the key id, changes hold only what changed', async ({
  t,
  key,
  keyId,
}) => {
  const tableId = await createTable(t.app, key);
  const col = await createColumn(t.app, key, tableId, {
    label: 'A',
    kind: 'enrichment',
    dataType: 'text',
    config: { provider: 'llm', mode: 'basic', lane: 'x' },
  });
  const url = `${columnsPath(tableId)}/${col.id}`;
  await call(t.app, 'PATCH', url, { headers: bearer(key), body: { label: 'B', isImportant: false } });
  await call(t.app, 'PATCH', url, {
    headers: bearer(key),
    body: { config: { mode: 'advanced', lane: null } },
  });
  // Changes nothing: no entry.
  await call(t.app, 'PATCH', url, { headers: bearer(key), body: { label: 'B' } });
  await call(t.app, 'POST', `${columnsPath(tableId)}/reorder`, {
    headers: bearer(key),
    body: { columnIds: [col.id] },
  });
  await call(t.app, 'PATCH', url, { headers: bearer(key), body: { position: 9 } });

  const res = await call(t.app, 'GET', `${url}/history`, { headers: bearer(key) });
  assert.is(res.status, 200);
  const entries = res.body.data;
  assert.is(res.body.nextCursor, null);
  assert.equal(
    entries.map((e: { revision: number; type: string }) => [e.revision, e.type]),
    [
      [0, 'ColumnCreated'],
      [1, 'ColumnPatched'],
      [2, 'ColumnPatched'],
      [3, 'ColumnPatched'],
    ],
  );
  assert.ok(
    entries.every((e: { actor: string; at: string }) => e.actor === keyId && !Number.isNaN(Date.parse(e.at))),
  );
  assert.is(entries[0].changes.label, 'A');
  assert.equal(entries[1].changes, { label: 'B' });
  assert.equal(entries[2].changes, { config: { mode: 'advanced', lane: null } });
  assert.equal(entries[3].changes, { position: 9 });

  // A page at a time: limit, then the cursor of the last entry shown; a cursor of no page is a 400.
  const seen: number[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?limit=3&cursor=${cursor}` : '?limit=3';
    const page = await call(t.app, 'GET', `${url}/history${query}`, { headers: bearer(key) });
    assert.is(page.status, 200);
    seen.push(...page.body.data.map((e: { revision: number }) => e.revision));
    cursor = page.body.nextCursor;
  } while (cursor);
  assert.equal(seen, [0, 1, 2, 3]);
  const bad = await call(t.app, 'GET', `${url}/history?cursor=bm90LWEtY3Vyc29y`, { headers: bearer(key) });
  assert.is(bad.status, 400);
  assert.is(bad.body.errors[0].path, 'querystring.cursor');
});

test.run();
