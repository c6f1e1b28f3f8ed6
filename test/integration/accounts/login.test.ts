import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LOGIN_LIMITS } from '../../../commands/accounts/login.ts';
import { SCOPES } from '../../../src/auth/scopes.ts';
import { apiKeyStream, loginStream } from '../../../src/domain/accounts/streams.ts';
import {
  accounts,
  type BootstrappedAccount,
  bearer,
  bootstrapAccount,
  call,
  someClientAddress,
} from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

const test = suite<{ t: TestApp; account: BootstrappedAccount }>('accounts: login with email and password');

test.before(async (ctx) => {
  ctx.t = await startTestApp(accounts);
  ctx.account = await bootstrapAccount(ctx.t.app);
});
test.after(async (ctx) => {
  await ctx.t.close();
});

const login = (t: TestApp, body: Record<string, unknown>, address = someClientAddress()) =>
  call(t.app, 'POST', '/api/auth/login', { headers: { 'x-forwarded-for': address }, body });

const eventCount = async (t: TestApp) =>
  (await t.db.pool.query('SELECT count(*)::int AS n FROM events')).rows[0].n as number;

test("the owner's email and password issue a new key with every scope, audited as a login", async ({
  t,
  account,
}) => {
  const res = await login(t, {
    email: account.email.toUpperCase(),
    password: account.password,
    key_name: 'laptop',
  });
  assert.is(res.status, 201, JSON.stringify(res.body));
  const { apiKey, keyMetadata } = res.body;
  assert.equal(keyMetadata.scopes, [...SCOPES]);
  assert.is(keyMetadata.name, 'laptop');
  assert.is(res.headers.location, `/api/keys/${keyMetadata.id}`);
  assert.is(res.headers['cache-control'], 'no-store');
  const me = await call(t.app, 'GET', '/api/me', { headers: bearer(apiKey) });
  assert.is(me.status, 200);
  assert.is(me.body.organization.id, account.organizationId);
  assert.is(me.body.userData.id, account.userId);
  const [issued] = await t.deps.store.readStream(apiKeyStream.name(keyMetadata.id));
  assert.is(issued?.metadata.actor, `login:${account.userId}`);
});

test('scopes may be a subset', async ({ t, account }) => {
  const res = await login(t, {
    email: account.email,
    password: account.password,
    key_name: 'reader',
    scopes: ['tables:read', 'keys:read'],
  });
  assert.is(res.status, 201);
  assert.equal(res.body.keyMetadata.scopes, ['tables:read', 'keys:read']);
  const me = await call(t.app, 'GET', '/api/me', { headers: bearer(res.body.apiKey) });
  assert.equal(me.body.keyMetadata.scopes, ['tables:read', 'keys:read']);
});

test('a wrong password and an unknown email get the same 401; only the first is recorded, never what was typed', async ({
  t,
  account,
}) => {
  const typed = 'guessed password 12345';
  const wrong = await login(t, { email: account.email, password: typed, key_name: 'x' });
  const unknown = await login(t, { email: 'nobody-here@example.com', password: typed, key_name: 'x' });
  for (const res of [wrong, unknown]) {
    assert.is(res.status, 401);
    assert.is(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.is(res.body.code, 'invalid_credentials');
  }
  const { requestId: _a, ...wrongBody } = wrong.body;
  const { requestId: _b, ...unknownBody } = unknown.body;
  assert.equal(wrongBody, unknownBody);
  assert.equal(Object.keys(wrong.headers).sort(), Object.keys(unknown.headers).sort());

  const failures = await t.deps.store.readStream(loginStream.name(account.userId));
  assert.equal(
    failures.map((e) => [e.type, e.data]),
    [['LoginFailed', { userId: account.userId }]],
  );
  const all = await t.db.pool.query('SELECT data::text || metadata::text AS text FROM events');
  assert.not.ok(all.rows.some((r) => r.text.includes(typed) || r.text.includes('nobody-here')));
});

test('bad input is a 400 naming the field, and stores nothing', async ({ t, account }) => {
  const before = await eventCount(t);
  const cases: [Record<string, unknown>, string][] = [
    [{ email: account.email, password: account.password }, 'key_name'],
    [{ email: 'not an address', password: 'x', key_name: 'k' }, 'email'],
    [{ email: account.email, password: account.password, key_name: 'k', scopes: ['root'] }, 'scopes[0]'],
    [{ email: account.email, password: account.password, key_name: 'k', scopes: [] }, 'scopes'],
    [{ email: account.email, password: account.password, key_name: 'k', admin: true }, 'admin'],
  ];
  for (const [body, path] of cases) {
    const res = await login(t, body);
    assert.is(res.status, 400, JSON.stringify(res.body));
    assert.is(res.body.code, 'validation_failed');
    assert.ok(
      res.body.errors.some((e: { path: string }) => e.path === path),
      `${path}: ${JSON.stringify(res.body.errors)}`,
    );
  }
  assert.is(await eventCount(t), before);
});

test('rate limited per client address: 429 with Retry-After; another address goes on', async ({ t }) => {
  const address = '198.51.100.7';
  for (let i = 0; i < LOGIN_LIMITS.perAddress.max; i++) {
    const res = await login(
      t,
      { email: `someone${i}@example.com`, password: 'wrong', key_name: 'k' },
      address,
    );
    assert.is(res.status, 401);
  }
  const limited = await login(t, { email: 'someone@example.com', password: 'wrong', key_name: 'k' }, address);
  assert.is(limited.status, 429);
  assert.is(limited.body.code, 'rate_limited');
  assert.ok(Number(limited.headers['retry-after']) > 0, JSON.stringify(limited.headers));
  const other = await login(t, { email: 'someone@example.com', password: 'wrong', key_name: 'k' });
  assert.is(other.status, 401);
});

test('rate limited per account from any address, the right password too; the same for an unknown email', async ({
  t,
}) => {
  const victim = await bootstrapAccount(t.app);
  for (const email of [victim.email, 'no-account-here@example.com']) {
    for (let i = 0; i < LOGIN_LIMITS.perAccount.max; i++) {
      const res = await login(t, { email, password: `wrong ${i}`, key_name: 'k' });
      assert.is(res.status, 401);
    }
    const limited = await login(t, { email, password: victim.password, key_name: 'k' });
    assert.is(limited.status, 429, email);
    assert.is(limited.body.code, 'rate_limited');
    assert.ok(Number(limited.headers['retry-after']) > 0, JSON.stringify(limited.headers));
  }
  const failures = await t.deps.store.readStream(loginStream.name(victim.userId));
  assert.is(failures.length, LOGIN_LIMITS.perAccount.max, 'the refused attempts were not checked');
});

test.run();
