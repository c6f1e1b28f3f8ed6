import * as assert from 'uvu/assert';
import { tableStream } from '../../../src/domain/tables/table-state.ts';
import { bearer, bootstrapAccount, call, issueKey } from '../../support/accounts.ts';
import { thenAppended, whenRequest } from '../../support/api-spec.ts';
import { createColumn, createTable, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('tables API: delete a table, filter by name');

test('DELETE /api/tables/{id}: 204, its columns go with it (ColumnRemoved each, then TableDeleted)', async ({
  t,
  key,
  keyId,
}) => {
  const tableId = await createTable(t.app, key, 'Doomed');
  const email = await createColumn(t.app, key, tableId, { label: 'Email', kind: 'input', dataType: 'email' });
  const name = await createColumn(t.app, key, tableId, { label: 'Name', kind: 'input', dataType: 'text' });
  const inserted = await call(t.app, 'POST', `/api/tables/${tableId}/rows`, {
    headers: bearer(key),
    body: { rows: [{ cells: { [email.key]: 'a@b.co', [name.key]: 'A' } }, { cells: { [name.key]: 'B' } }] },
  });
  assert.is(inserted.status, 201, JSON.stringify(inserted.body));
  const when = await whenRequest(t, 'DELETE', `/api/tables/${tableId}`, { headers: bearer(key) });
  assert.is(when.answer.status, 204);
  const stream = tableStream.name(tableId);
  const deletedAt = when.appended.at(-1)?.recordedAt;
  assert.ok(deletedAt);
  thenAppended(when, keyId, [
    { stream, type: 'ColumnRemoved', data: { tableId, columnId: email.id, key: email.key } },
    { stream, type: 'ColumnRemoved', data: { tableId, columnId: name.id, key: name.key } },
    {
      stream,
      type: 'TableDeleted',
      data: { tableId, at: (when.appended.at(-1)!.data as { at: string }).at },
    },
  ]);
  // Read your writes: gone from every read right after the answer.
  const headers = bearer(key);
  assert.is((await call(t.app, 'GET', `/api/tables/${tableId}`, { headers })).status, 404);
  assert.is((await call(t.app, 'GET', `/api/tables/${tableId}/columns`, { headers })).status, 404);
  assert.is(
    (await call(t.app, 'GET', `/api/tables/${tableId}/columns/${email.id}`, { headers })).status,
    404,
  );
  const list = await call(t.app, 'GET', '/api/tables?limit=100', { headers });
  assert.not.ok(list.body.data.some((row: { id: string }) => row.id === tableId));
  const { rows } = await t.deps.pool.query(
    'SELECT count(*)::int AS n FROM table_columns WHERE table_id = $1',
    [tableId],
  );
  assert.is(rows[0].n, 0);
  const cells = await t.deps.pool.query('SELECT count(*)::int AS n FROM table_rows WHERE table_id = $1', [
    tableId,
  ]);
  assert.is(cells.rows[0].n, 0, 'the rows went with their table');
  // Deleting again, renaming or adding a column: the table is unknown now.
  assert.is((await call(t.app, 'DELETE', `/api/tables/${tableId}`, { headers })).status, 404);
  assert.is(
    (await call(t.app, 'PATCH', `/api/tables/${tableId}`, { headers, body: { name: 'Back' } })).status,
    404,
  );
});

test('DELETE /api/tables/{id} is refused with 409 table_in_use while another table syncs into it', async ({
  t,
  key,
  keyId,
}) => {
  const destination = await createTable(t.app, key, 'Destination');
  const source = await createTable(t.app, key, 'Source');
  const data = await createColumn(t.app, key, source, { label: 'Data', kind: 'input', dataType: 'json' });
  const sync = await createColumn(t.app, key, source, {
    label: 'Push',
    kind: 'action',
    dataType: 'json',
    config: {
      provider: 'sync_to_table',
      destinationTableId: destination,
      syncMode: 'list',
      listSourceColumnId: data.id,
    },
  });
  const when = await whenRequest(t, 'DELETE', `/api/tables/${destination}`, { headers: bearer(key) });
  assert.is(when.answer.status, 409, JSON.stringify(when.answer.body));
  assert.is(when.answer.body.code, 'table_in_use');
  assert.equal(when.answer.body.referencedBy, [
    { tableId: source, columnId: sync.id, key: sync.key, path: 'config.destinationTableId' },
  ]);
  thenAppended(when, keyId, []);
  assert.is((await call(t.app, 'GET', `/api/tables/${destination}`, { headers: bearer(key) })).status, 200);
  // Once the referring column is gone, the table can go.
  assert.is(
    (await call(t.app, 'DELETE', `/api/tables/${source}/columns/${sync.id}`, { headers: bearer(key) }))
      .status,
    204,
  );
  assert.is(
    (await call(t.app, 'DELETE', `/api/tables/${destination}`, { headers: bearer(key) })).status,
    204,
  );
});

test('DELETE /api/tables/{id}: 403 for another organization (nothing appended), 404 unknown, scope', async ({
  t,
  key,
  keyId,
  otherKey,
}) => {
  const theirs = await createTable(t.app, otherKey, 'Theirs');
  const when = await whenRequest(t, 'DELETE', `/api/tables/${theirs}`, { headers: bearer(key) });
  assert.is(when.answer.status, 403);
  thenAppended(when, keyId, []);
  assert.is(
    (await call(t.app, 'DELETE', '/api/tables/tbl_00000000000000000000', { headers: bearer(key) })).status,
    404,
  );
  assert.is((await call(t.app, 'DELETE', '/api/tables/nonsense', { headers: bearer(key) })).status, 404);
  const { apiKey: readOnly } = await issueKey(t.app, key, ['tables:read']);
  const mine = await createTable(t.app, key, 'Mine');
  const refused = await call(t.app, 'DELETE', `/api/tables/${mine}`, { headers: bearer(readOnly) });
  assert.is(refused.status, 403);
  assert.is(refused.body.code, 'missing_scope');
});

test('GET /api/tables?name= keeps the tables whose name contains the text, case-insensitively', async ({
  t,
}) => {
  const { apiKey } = await bootstrapAccount(t.app);
  for (const name of ['Leads Q1', 'leads q2', 'Investors', '100% done', 'under_score']) {
    await createTable(t.app, apiKey, name);
  }
  const names = async (filter: string) =>
    (
      await call(t.app, 'GET', `/api/tables?name=${encodeURIComponent(filter)}`, { headers: bearer(apiKey) })
    ).body.data.map((row: { name: string }) => row.name);
  assert.equal(await names('LEADS'), ['Leads Q1', 'leads q2']);
  assert.equal(await names('vest'), ['Investors']);
  // LIKE's wildcards match themselves only.
  assert.equal(await names('%'), ['100% done']);
  assert.equal(await names('_'), ['under_score']);
  assert.equal(await names('nothing like it'), []);
  const paged = await call(t.app, 'GET', '/api/tables?name=leads&limit=1', { headers: bearer(apiKey) });
  assert.is(paged.body.data.length, 1);
  const next = await call(t.app, 'GET', `/api/tables?name=leads&limit=1&cursor=${paged.body.nextCursor}`, {
    headers: bearer(apiKey),
  });
  assert.equal(
    next.body.data.map((row: { name: string }) => row.name),
    ['leads q2'],
  );
  assert.is(next.body.nextCursor, null);
});

test.run();
