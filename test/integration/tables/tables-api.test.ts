import * as assert from 'uvu/assert';
import { newTableId } from '../../../src/domain/tables/ids.ts';
import { tableStream } from '../../../src/domain/tables/table-state.ts';
import { bearer, bootstrapAccount, call, issueKey } from '../../support/accounts.ts';
import { thenAppended, whenRequest } from '../../support/api-spec.ts';
import { createTable, tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('tables API: create, list, get, rename');

test('POST /api/tables creates a table of the key organization (TableCreated); GET shows it', async ({
  t,
  key,
  keyId,
  organizationId,
}) => {
  const when = await whenRequest(t, 'POST', '/api/tables', {
    headers: bearer(key),
    body: { name: 'Prospects' },
  });
  const created = when.answer;
  assert.is(created.status, 201);
  thenAppended(when, keyId, [
    {
      stream: tableStream.name(created.body.id),
      type: 'TableCreated',
      data: { tableId: created.body.id, organizationId, name: 'Prospects', at: created.body.createdAt },
    },
  ]);
  assert.match(created.body.id, /^tbl_[0-9a-z]{20}$/);
  assert.is(created.body.name, 'Prospects');
  assert.is(created.body.createdAt, created.body.updatedAt);
  const got = await call(t.app, 'GET', `/api/tables/${created.body.id}`, { headers: bearer(key) });
  assert.is(got.status, 200);
  assert.equal(got.body, created.body);
});

test('GET /api/tables pages with limit and cursor, own organization only', async ({ t, otherKey }) => {
  const fresh = (await bootstrapAccount(t.app)).apiKey;
  const ids = [];
  for (const name of ['a', 'b', 'c', 'd', 'e']) ids.push(await createTable(t.app, fresh, name));
  await createTable(t.app, otherKey, 'not mine');
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
    const page = await call(t.app, 'GET', `/api/tables${query}`, { headers: bearer(fresh) });
    assert.is(page.status, 200);
    assert.ok(page.body.data.length <= 2);
    seen.push(...page.body.data.map((row: { id: string }) => row.id));
    cursor = page.body.nextCursor;
    pages++;
  } while (cursor);
  assert.is(pages, 3);
  assert.equal(seen, ids);
});

test('GET /api/tables refuses a limit outside 1-100 and a foreign cursor (400)', async ({ t, key }) => {
  for (const query of ['?limit=0', '?limit=101', '?limit=x', '?cursor=bm9wZQ']) {
    const res = await call(t.app, 'GET', `/api/tables${query}`, { headers: bearer(key) });
    assert.is(res.status, 400, query);
    assert.is(res.body.code, 'validation_failed');
  }
});

test('PATCH /api/tables/{id} renames (TableRenamed); a GET right after shows it', async ({
  t,
  key,
  keyId,
}) => {
  const id = await createTable(t.app, key, 'Old');
  const when = await whenRequest(t, 'PATCH', `/api/tables/${id}`, {
    headers: bearer(key),
    body: { name: 'New' },
  });
  const renamed = when.answer;
  assert.is(renamed.status, 200);
  thenAppended(when, keyId, [
    {
      stream: tableStream.name(id),
      type: 'TableRenamed',
      data: { tableId: id, name: 'New', at: renamed.body.updatedAt },
    },
  ]);
  assert.is(renamed.body.name, 'New');
  assert.ok(renamed.body.updatedAt >= renamed.body.createdAt);
  const got = await call(t.app, 'GET', `/api/tables/${id}`, { headers: bearer(key) });
  assert.is(got.body.name, 'New');
  const list = await call(t.app, 'GET', '/api/tables?limit=100', { headers: bearer(key) });
  assert.ok(list.body.data.some((row: { id: string; name: string }) => row.id === id && row.name === 'New'));
});

test('401 without a key or with an invalid one', async ({ t }) => {
  const none = await call(t.app, 'GET', '/api/tables');
  assert.is(none.status, 401);
  assert.ok(none.headers['www-authenticate']);
  const bad = await call(t.app, 'POST', '/api/tables', {
    headers: bearer('stk_nope.nope'),
    body: { name: 'x' },
  });
  assert.is(bad.status, 401);
});

test('403 for a missing scope', async ({ t, key }) => {
  const readOnly = (await issueKey(t.app, key, ['tables:read'])).apiKey;
  const res = await call(t.app, 'POST', '/api/tables', { headers: bearer(readOnly), body: { name: 'x' } });
  assert.is(res.status, 403);
  assert.is(res.body.code, 'missing_scope');
  const writeOnly = (await issueKey(t.app, key, ['tables:write'])).apiKey;
  assert.is((await call(t.app, 'GET', '/api/tables', { headers: bearer(writeOnly) })).status, 403);
});

test('403 for a table of another organization (nothing appended), 404 for an unknown or malformed id', async ({
  t,
  key,
  keyId,
  otherKey,
}) => {
  const theirs = await createTable(t.app, otherKey, 'theirs');
  assert.is((await call(t.app, 'GET', `/api/tables/${theirs}`, { headers: bearer(key) })).status, 403);
  const rename = await whenRequest(t, 'PATCH', `/api/tables/${theirs}`, {
    headers: bearer(key),
    body: { name: 'mine' },
  });
  assert.is(rename.answer.status, 403);
  assert.is(rename.answer.body.code, 'forbidden');
  thenAppended(rename, keyId, []);
  for (const id of [newTableId(), 'nope', 'tbl_short']) {
    const got = await call(t.app, 'GET', `/api/tables/${id}`, { headers: bearer(key) });
    assert.is(got.status, 404, id);
    assert.is(got.body.code, 'not_found');
    const patched = await call(t.app, 'PATCH', `/api/tables/${id}`, {
      headers: bearer(key),
      body: { name: 'x' },
    });
    assert.is(patched.status, 404, id);
  }
});

test.run();
