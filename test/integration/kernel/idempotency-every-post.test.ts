import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { tablesSuite } from '../../support/tables.ts';

/*
 * Idempotency-Key on every POST route (issue 34, item 7): `POST /api/tables` and `/api/leads` ignored
 * the key (two tables). One mechanism (src/http/idempotency.ts) now honours it on every POST route as
 * it is registered, or refuses it with a 400 where it cannot be honoured; none ignores it.
 */
const test = tablesSuite('Idempotency-Key: honoured or refused on every POST route');

const post = (
  t: Parameters<typeof call>[0],
  apiKey: string | undefined,
  path: string,
  body: object,
  key?: string,
) =>
  call(t, 'POST', path, {
    headers: { ...(apiKey ? bearer(apiKey) : {}), ...(key ? { 'idempotency-key': key } : {}) },
    body,
  });

const tablesNamed = async (t: Parameters<typeof call>[0], apiKey: string, name: string) =>
  (await call(t, 'GET', '/api/tables?limit=100', { headers: bearer(apiKey) })).body.data.filter(
    (table: { name: string }) => table.name === name,
  );

test('two POST /api/tables with one key make one table; the second answer is the replay', async ({
  t,
  key,
}) => {
  const first = await post(t.app, key, '/api/tables', { name: 'Once' }, 'tables-1');
  assert.is(first.status, 201, JSON.stringify(first.body));
  assert.is(first.headers['idempotent-replayed'], undefined);
  const again = await post(t.app, key, '/api/tables', { name: 'Once' }, 'tables-1');
  assert.is(again.status, 201);
  assert.is(again.headers['idempotent-replayed'], 'true');
  assert.equal(again.body, first.body);
  assert.is(again.headers.location, first.headers.location);
  assert.is((await tablesNamed(t.app, key, 'Once')).length, 1);
});

test('the same key with another body: 422 idempotency_key_reused, nothing made', async ({ t, key }) => {
  assert.is((await post(t.app, key, '/api/tables', { name: 'First' }, 'tables-2')).status, 201);
  const other = await post(t.app, key, '/api/tables', { name: 'Second' }, 'tables-2');
  assert.is(other.status, 422);
  assert.is(other.body.code, 'idempotency_key_reused');
  assert.equal(await tablesNamed(t.app, key, 'Second'), []);
  // And with another route (another path is another request).
  const lead = await post(t.app, key, '/api/leads', { emailAddresses: ['x@example.org'] }, 'tables-2');
  assert.is(lead.status, 422);
});

test('two POST /api/leads with one key: the replay, not a merge', async ({ t, key }) => {
  const body = { firstName: 'Grace', lastName: 'Hopper', emailAddresses: ['grace@navy.example'] };
  const first = await post(t.app, key, '/api/leads', body, 'lead-1');
  assert.is(first.status, 201, JSON.stringify(first.body));
  const again = await post(t.app, key, '/api/leads', body, 'lead-1');
  assert.equal([again.status, again.headers['idempotent-replayed']], [201, 'true']);
  assert.equal(again.body, first.body);
  // Without the key the same body is a new request: the identity engine merges it into the lead.
  const fresh = await post(t.app, key, '/api/leads', body);
  assert.equal([fresh.status, fresh.body.merged, fresh.body.id], [200, true, first.body.id]);
});

test('a malformed key is a 400 naming the header on every route that takes one', async ({ t, key }) => {
  for (const [path, body] of [
    ['/api/tables', { name: 'Bad key' }],
    ['/api/leads', { emailAddresses: ['bad@example.org'] }],
  ] as const) {
    const res = await post(t.app, key, path, body, 'tab\there');
    assert.is(res.status, 400, path);
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      ['headers.idempotency-key'],
    );
  }
  assert.equal(await tablesNamed(t.app, key, 'Bad key'), []);
});

test('where an answer shows a secret once, or on a public route, the key is refused with a 400 and nothing done', async ({
  t,
  key,
}) => {
  const keysBefore = (await call(t.app, 'GET', '/api/keys', { headers: bearer(key) })).body.keys.length;
  const refusals = [
    await post(t.app, key, '/api/keys', { name: 'reader', scopes: ['tables:read'] }, 'k-1'),
    await post(
      t.app,
      key,
      '/api/webhooks',
      { url: 'https://hooks.example.org/x', eventTypes: ['table.created'] },
      'k-2',
    ),
    await post(
      t.app,
      undefined,
      '/api/auth/login',
      { email: 'nobody@example.org', password: 'x'.repeat(12) },
      'k-3',
    ),
  ];
  for (const res of refusals) {
    assert.is(res.status, 400, JSON.stringify(res.body));
    assert.is(res.body.code, 'idempotency_key_unsupported');
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      ['headers.idempotency-key'],
    );
  }
  assert.match(refusals[0]!.body.detail, /secret/);
  assert.match(refusals[2]!.body.detail, /public/);
  assert.is((await call(t.app, 'GET', '/api/keys', { headers: bearer(key) })).body.keys.length, keysBefore);
  // Without the key the same request is served.
  assert.is((await post(t.app, key, '/api/keys', { name: 'reader', scopes: ['tables:read'] })).status, 201);
});

test('the public content sync honours keys (CMS webhooks send them), under one scope for every caller', async ({
  t,
}) => {
  const first = await call(t.app, 'POST', '/api/content/sync', { headers: { 'idempotency-key': 'cms-1' } });
  assert.is(first.status, 200, JSON.stringify(first.body));
  const again = await call(t.app, 'POST', '/api/content/sync', { headers: { 'idempotency-key': 'cms-1' } });
  assert.equal([again.status, again.headers['idempotent-replayed'], again.body], [200, 'true', first.body]);
  // The bearer presented is part of the request: another one is another request.
  const other = await call(t.app, 'POST', '/api/content/sync', {
    headers: { 'idempotency-key': 'cms-1', authorization: 'Bearer wrong' },
  });
  assert.is(other.status, 422);
});

interface Operation {
  parameters?: { in: string; name: string; description: string }[];
}

test('every POST route of the document declares Idempotency-Key: honoured, or refused saying why', async ({
  t,
}) => {
  const doc = (await call(t.app, 'GET', '/openapi.json')).body;
  let honoured = 0;
  let refused = 0;
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    const operation = item.post;
    if (!operation) continue;
    const header = (operation.parameters ?? []).find(
      (p) => p.in === 'header' && p.name === 'idempotency-key',
    );
    assert.ok(header, `POST ${path} does not declare Idempotency-Key`);
    if (/^Refused on this route/.test(header.description)) refused++;
    else {
      assert.match(header.description, /first answer/, path);
      honoured++;
    }
  }
  assert.ok(honoured > 30, `${honoured} POST routes honour the key`);
  assert.ok(refused >= 4, `${refused} POST routes refuse it`);
});

test.run();
