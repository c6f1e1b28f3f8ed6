import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  accounts,
  type BootstrappedAccount,
  bearer,
  bootstrapAccount,
  call,
  issueKey,
  someClientAddress,
} from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

/*
 * No organization locks itself out of its keys: its last active key holding keys:write is not
 * revoked, and whatever happens to its keys, the owner's password gets a new one (POST /api/auth/login).
 */
const test = suite<{ t: TestApp }>('accounts: no lockout');

test.before(async (ctx) => {
  ctx.t = await startTestApp(accounts);
});
test.after(async (ctx) => {
  await ctx.t.close();
});

const revoke = (t: TestApp, apiKey: string, keyId: string) =>
  call(t.app, 'DELETE', `/api/keys/${keyId}`, { headers: bearer(apiKey) });
const meStatus = async (t: TestApp, apiKey: string) =>
  (await call(t.app, 'GET', '/api/me', { headers: bearer(apiKey) })).status;

test('the only key that can manage keys cannot revoke itself: 409 last_admin_key, and it still works', async ({
  t,
}) => {
  const account = await bootstrapAccount(t.app);
  const res = await revoke(t, account.apiKey, account.keyId);
  assert.is(res.status, 409);
  assert.is(res.body.code, 'last_admin_key');
  assert.match(res.body.detail, 'keys:write');
  assert.is(await meStatus(t, account.apiKey), 200);
  const list = await call(t.app, 'GET', '/api/keys', { headers: bearer(account.apiKey) });
  assert.not.ok(list.body.keys[0].revoked);
});

test('a narrower key may revoke the full one while it holds keys:write itself; then it is the last', async ({
  t,
}) => {
  const account = await bootstrapAccount(t.app);
  const narrow = await issueKey(t.app, account.apiKey, ['keys:write', 'keys:read']);
  const reader = await issueKey(t.app, account.apiKey, ['keys:read']);
  assert.is((await revoke(t, account.apiKey, reader.keyId)).status, 204, 'a key without keys:write goes');
  assert.is((await revoke(t, narrow.apiKey, account.keyId)).status, 204);
  const last = await revoke(t, narrow.apiKey, narrow.keyId);
  assert.is(last.status, 409);
  assert.is(last.body.code, 'last_admin_key');

  // The owner's password gives the organization a full key again.
  const login = await call(t.app, 'POST', '/api/auth/login', {
    headers: { 'x-forwarded-for': someClientAddress() },
    body: { email: account.email, password: account.password, key_name: 'recovered' },
  });
  assert.is(login.status, 201);
  assert.is((await revoke(t, login.body.apiKey, narrow.keyId)).status, 204, 'no longer the last');
});

test('two keys revoking each other at once: never both, one key that can manage keys stays', async ({
  t,
}) => {
  for (let round = 0; round < 5; round++) {
    const account: BootstrappedAccount = await bootstrapAccount(t.app);
    const other = await issueKey(t.app, account.apiKey, ['keys:write', 'keys:read']);
    const [a, b] = await Promise.all([
      revoke(t, account.apiKey, other.keyId),
      revoke(t, other.apiKey, account.keyId),
    ]);
    assert.not.ok(a.status === 204 && b.status === 204, `both revoked in round ${round}`);
    const alive = [await meStatus(t, account.apiKey), await meStatus(t, other.apiKey)];
    assert.ok(alive.includes(200), `round ${round}: ${alive}`);
  }
});

test("GET /api/keys/{keyId}: the organization's own key, never another's", async ({ t }) => {
  const account = await bootstrapAccount(t.app);
  const other = await bootstrapAccount(t.app);
  const own = await call(t.app, 'GET', `/api/keys/${account.keyId}`, { headers: bearer(account.apiKey) });
  assert.is(own.status, 200);
  assert.is(own.body.id, account.keyId);
  assert.is(own.body.revoked, false);
  assert.not.match(JSON.stringify(own.body), /hash|apiKey/i);
  const foreign = await call(t.app, 'GET', `/api/keys/${other.keyId}`, { headers: bearer(account.apiKey) });
  assert.is(foreign.status, 404);
  assert.is(foreign.body.code, 'not_found');
});

test.run();
