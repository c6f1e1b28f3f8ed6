import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiKeysProjection } from '../../../projections/accounts/api-keys.ts';
import { rebuildProjection } from '../../../src/projection/rebuild.ts';
import {
  accounts,
  type BootstrappedAccount,
  bearer,
  bootstrapAccount,
  call,
  issueKey,
} from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

const test = suite<{ t: TestApp; account: BootstrappedAccount }>('auth: keys, 401s and revocation');

test.before(async (ctx) => {
  ctx.t = await startTestApp(accounts);
  ctx.account = await bootstrapAccount(ctx.t.app);
});
test.after(async (ctx) => {
  await ctx.t.close();
});

const expect401 = (res: Awaited<ReturnType<typeof call>>) => {
  assert.is(res.status, 401, JSON.stringify(res.body));
  assert.match(res.headers['www-authenticate'] ?? '', /^Bearer/);
  assert.is(res.headers['content-type'], 'application/problem+json; charset=utf-8');
  assert.is(res.body.code, 'unauthorized');
  assert.is(res.body.status, 401);
  assert.type(res.body.detail, 'string');
};

test('the key works in either header: Authorization: Bearer and X-API-Key', async ({ t, account }) => {
  const viaBearer = await call(t.app, 'GET', '/api/me', { headers: bearer(account.apiKey) });
  assert.is(viaBearer.status, 200);
  const viaHeader = await call(t.app, 'GET', '/api/me', { headers: { 'x-api-key': account.apiKey } });
  assert.is(viaHeader.status, 200);
  assert.is(viaHeader.body.keyMetadata.id, account.keyId);
});

test('401 when no key is sent', async ({ t }) => {
  expect401(await call(t.app, 'GET', '/api/me'));
});

test('401 for a malformed key, in either header', async ({ t }) => {
  const cases: Record<string, string>[] = [
    { authorization: 'Bearer not-a-key' },
    { authorization: 'Basic dXNlcjpwYXNz' },
    { authorization: 'Bearer' },
    { 'x-api-key': 'stk_short.secret' },
    { 'x-api-key': '' },
  ];
  for (const headers of cases) {
    expect401(await call(t.app, 'GET', '/api/me', { headers }));
  }
});

test('401 for an unknown key id and for a wrong secret', async ({ t, account }) => {
  const [prefix, secret] = account.apiKey.split('.') as [string, string];
  const unknownId = `stk_${'0'.repeat(20)}.${secret}`;
  expect401(await call(t.app, 'GET', '/api/me', { headers: bearer(unknownId) }));
  const flipped = secret.startsWith('A') ? `B${secret.slice(1)}` : `A${secret.slice(1)}`;
  expect401(await call(t.app, 'GET', '/api/me', { headers: bearer(`${prefix}.${flipped}`) }));
  expect401(await call(t.app, 'GET', '/api/me', { headers: { 'x-api-key': `${prefix}.${flipped}` } }));
});

test('401 comes before input validation: an unauthenticated bad body learns nothing of the route', async ({
  t,
}) => {
  expect401(await call(t.app, 'POST', '/api/keys', { body: { nonsense: true } }));
});

test('a key is issued with the requested scopes, returned once, and listed without any secret', async ({
  t,
  account,
}) => {
  const res = await call(t.app, 'POST', '/api/keys', {
    headers: bearer(account.apiKey),
    body: { name: 'reader', scopes: ['tables:read', 'keys:read'] },
  });
  assert.is(res.status, 201);
  assert.match(res.body.apiKey, /^stk_[0-9a-f]{20}\./);
  assert.equal(res.body.keyMetadata.scopes, ['tables:read', 'keys:read']);
  assert.is(res.body.keyMetadata.name, 'reader');

  const list = await call(t.app, 'GET', '/api/keys', { headers: bearer(res.body.apiKey) });
  assert.is(list.status, 200);
  const ids = list.body.keys.map((k: { id: string }) => k.id);
  assert.ok(ids.includes(account.keyId) && ids.includes(res.body.keyMetadata.id));
  const text = JSON.stringify(list.body);
  for (const key of [account.apiKey, res.body.apiKey]) assert.not.ok(text.includes(key.split('.')[1]));
  assert.not.match(text, /hash/i);
  assert.not.match(text, /apiKey/);
});

test('a key cannot grant a scope it does not hold (403), nor use a route it lacks the scope for', async ({
  t,
  account,
}) => {
  const limited = await issueKey(t.app, account.apiKey, ['keys:write', 'tables:read']);
  const res = await call(t.app, 'POST', '/api/keys', {
    headers: bearer(limited.apiKey),
    body: { name: 'escalate', scopes: ['tables:read', 'secrets:read'] },
  });
  assert.is(res.status, 403);
  assert.is(res.body.code, 'scope_not_held');
  assert.match(res.body.detail, 'secrets:read');
  const ok = await call(t.app, 'POST', '/api/keys', {
    headers: bearer(limited.apiKey),
    body: { name: 'narrower', scopes: ['tables:read'] },
  });
  assert.is(ok.status, 201);

  const list = await call(t.app, 'GET', '/api/keys', { headers: bearer(limited.apiKey) });
  assert.is(list.status, 403);
  assert.is(list.body.code, 'missing_scope');
  assert.match(list.body.detail, 'keys:read');
  assert.is(list.body.scope, 'keys:read');
});

test('a revoked key gets 401 on its very next request, and revoking again is harmless', async ({
  t,
  account,
}) => {
  for (let round = 0; round < 5; round++) {
    const victim = await issueKey(t.app, account.apiKey, ['keys:read']);
    assert.is((await call(t.app, 'GET', '/api/me', { headers: bearer(victim.apiKey) })).status, 200);
    const revoked = await call(t.app, 'DELETE', `/api/keys/${victim.keyId}`, {
      headers: bearer(account.apiKey),
    });
    assert.is(revoked.status, 204);
    expect401(await call(t.app, 'GET', '/api/me', { headers: { 'x-api-key': victim.apiKey } }));
    const again = await call(t.app, 'DELETE', `/api/keys/${victim.keyId}`, {
      headers: bearer(account.apiKey),
    });
    assert.is(again.status, 204);
  }
  const list = await call(t.app, 'GET', '/api/keys', { headers: bearer(account.apiKey) });
  assert.ok(
    list.body.keys.some((k: { revoked: boolean; revokedAt: string | null }) => k.revoked && k.revokedAt),
  );
});

test('a key can revoke itself; its next request is refused', async ({ t, account }) => {
  const self = await issueKey(t.app, account.apiKey, ['keys:write']);
  const res = await call(t.app, 'DELETE', `/api/keys/${self.keyId}`, { headers: bearer(self.apiKey) });
  assert.is(res.status, 204);
  expect401(await call(t.app, 'GET', '/api/me', { headers: bearer(self.apiKey) }));
});

test("another organization's key is 404 and stays valid; an unknown key is 404", async ({ t, account }) => {
  const other = await bootstrapAccount(t.app);
  const res = await call(t.app, 'DELETE', `/api/keys/${other.keyId}`, { headers: bearer(account.apiKey) });
  assert.is(res.status, 404);
  assert.is(res.body.code, 'not_found');
  assert.is((await call(t.app, 'GET', '/api/me', { headers: bearer(other.apiKey) })).status, 200);
  const unknown = await call(t.app, 'DELETE', `/api/keys/${'f'.repeat(20)}`, {
    headers: bearer(account.apiKey),
  });
  assert.is(unknown.status, 404);
  // Nor does another organization's key show in the listing.
  const list = await call(t.app, 'GET', '/api/keys', { headers: bearer(account.apiKey) });
  assert.not.ok(list.body.keys.some((k: { id: string }) => k.id === other.keyId));
});

test('GET /api/me answers the key metadata, user and credit balance, and records the last use', async ({
  t,
  account,
}) => {
  const fresh = await issueKey(t.app, account.apiKey, ['tables:read']);
  const first = await call(t.app, 'GET', '/api/me', { headers: bearer(fresh.apiKey) });
  assert.is(first.status, 200);
  assert.equal(first.body.organization, {
    id: account.organizationId,
    name: 'Test organization',
    balance: 50,
  });
  assert.is(first.body.userData.id, account.userId);
  assert.equal(first.body.keyMetadata.scopes, ['tables:read']);
  await t.deps.parts.auth.lastUsed.settled();
  const second = await call(t.app, 'GET', '/api/me', { headers: bearer(fresh.apiKey) });
  assert.type(second.body.keyMetadata.lastUsedAt, 'string');
});

test('a rebuild of the api_keys projection keeps when each key was last used', async ({ t, account }) => {
  await call(t.app, 'GET', '/api/me', { headers: bearer(account.apiKey) });
  await t.deps.parts.auth.lastUsed.settled();
  const before = (await call(t.app, 'GET', '/api/keys', { headers: bearer(account.apiKey) })).body;
  const used = before.keys.find((k: { id: string }) => k.id === account.keyId).lastUsedAt;
  assert.type(used, 'string');

  const result = await rebuildProjection(t.deps.store, t.db.pool, apiKeysProjection, { actor: 'test' });
  assert.is(result.outcome, 'swapped');
  const after = (await call(t.app, 'GET', '/api/keys', { headers: bearer(account.apiKey) })).body;
  assert.equal(after, before, 'every key, last use included, as before the rebuild');
});

test.run();
