import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SCOPES } from '../../../src/auth/scopes.ts';
import { organizationStream } from '../../../src/domain/accounts/streams.ts';
import { accounts, bearer, call, someClientAddress } from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

const test = suite<{ t: TestApp }>('accounts: bootstrap');

const body = (email: string, extra: Record<string, unknown> = {}) => ({
  first_name: 'Ada',
  last_name: 'Lovelace',
  email,
  password: 'correct horse battery staple',
  organization_name: 'Analytical Engines',
  key_name: 'laptop',
  ...extra,
});

const bootstrap = (t: TestApp, payload: unknown, address = someClientAddress()) =>
  call(t.app, 'POST', '/api/auth/agent-bootstrap', {
    body: payload,
    headers: { 'x-forwarded-for': address },
  });

const count = async (t: TestApp, sql: string, params: unknown[] = []) =>
  Number((await t.db.pool.query(sql, params)).rows[0].n);

test.before(async (ctx) => {
  ctx.t = await startTestApp({ ...accounts, env: { BOOTSTRAP_RATE_LIMIT: '1000' } });
});
test.after(async (ctx) => {
  await ctx.t.close();
});

test('given a new email, bootstrap answers 201 with a working key, the user, the key metadata and 50 credits', async ({
  t,
}) => {
  const res = await bootstrap(t, body('Ada@Example.COM'));
  assert.is(res.status, 201);
  const { apiKey, userData, keyMetadata, credits } = res.body;
  assert.match(apiKey, /^stk_[0-9a-f]{20}\.[A-Za-z0-9_-]{43,}$/);
  assert.is(apiKey.split('.')[0], `stk_${keyMetadata.id}`);
  assert.is(keyMetadata.prefix, `stk_${keyMetadata.id}`);
  assert.is(keyMetadata.name, 'laptop');
  assert.equal([...keyMetadata.scopes].sort(), [...SCOPES].sort());
  assert.is(userData.email, 'ada@example.com');
  assert.is(userData.firstName, 'Ada');
  assert.is(userData.lastName, 'Lovelace');
  assert.ok(!Number.isNaN(Date.parse(userData.createdAt)));
  assert.is(credits.organization.balance, 50);
  assert.is(credits.organization.name, 'Analytical Engines');
  assert.is(credits.user.id, userData.id);
  assert.not.ok(JSON.stringify(res.body).includes('correct horse'));

  const me = await call(t.app, 'GET', '/api/me', { headers: bearer(apiKey) });
  assert.is(me.status, 200);
  assert.is(me.body.organization.balance, 50);
  assert.is(me.body.keyMetadata.id, keyMetadata.id);
  assert.is(me.body.userData.email, 'ada@example.com');

  const orgEvents = await t.deps.store.readStream(organizationStream.name(credits.organization.id));
  const granted = orgEvents.find((e) => e.type === 'CreditsGranted');
  assert.equal(granted?.data, { organizationId: credits.organization.id, amount: 50, reason: 'starter' });
});

test('optional fields may be left out; key_name defaults to "default"', async ({ t }) => {
  const res = await bootstrap(t, {
    email: 'minimal@example.com',
    password: 'twelve chars',
    organization_name: 'M',
  });
  assert.is(res.status, 201);
  assert.is(res.body.keyMetadata.name, 'default');
  assert.is(res.body.userData.firstName, null);
});

test('the same email in another case is refused with 409 email_taken and nothing is created', async ({
  t,
}) => {
  await bootstrap(t, body('grace@example.com'));
  const before = {
    orgs: await count(t, 'SELECT count(*) AS n FROM organizations'),
    users: await count(t, 'SELECT count(*) AS n FROM users'),
    keys: await count(t, 'SELECT count(*) AS n FROM api_keys'),
    events: await count(t, 'SELECT count(*) AS n FROM events'),
  };
  const res = await bootstrap(t, body('GRACE@example.com', { organization_name: 'Another' }));
  assert.is(res.status, 409);
  assert.is(res.body.code, 'email_taken');
  assert.is(res.headers['content-type'], 'application/problem+json; charset=utf-8');
  assert.is(await count(t, 'SELECT count(*) AS n FROM events'), before.events);
  assert.is(await count(t, 'SELECT count(*) AS n FROM organizations'), before.orgs);
  assert.is(await count(t, 'SELECT count(*) AS n FROM users'), before.users);
  assert.is(await count(t, 'SELECT count(*) AS n FROM api_keys'), before.keys);
});

test('20 simultaneous bootstraps with one email: exactly one 201, the others 409, one account', async ({
  t,
}) => {
  const email = 'race@example.com';
  const eventsBefore = await count(t, 'SELECT count(*) AS n FROM events');
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => bootstrap(t, body(i % 2 ? email.toUpperCase() : email))),
  );
  const statuses = answers.map((a) => a.status).sort();
  assert.equal(statuses, [201, ...Array(19).fill(409)]);
  assert.ok(answers.filter((a) => a.status === 409).every((a) => a.body.code === 'email_taken'));
  // One reservation and its completion, one organization (created + starter credits), one user, one
  // key: nothing of the losers.
  const { rows } = await t.db.pool.query('SELECT type FROM events ORDER BY position OFFSET $1', [
    eventsBefore,
  ]);
  assert.equal(rows.map((r) => r.type).sort(), [
    'ApiKeyIssued',
    'BootstrapCompleted',
    'CreditsGranted',
    'EmailReserved',
    'OrganizationCreated',
    'UserRegistered',
  ]);
  assert.is(await count(t, 'SELECT count(*) AS n FROM users WHERE email = $1', [email]), 1);
});

const invalid: [string, Record<string, unknown>, string][] = [
  ['a missing email', { email: undefined }, 'email'],
  ['an invalid email', { email: 'not-an-address' }, 'email'],
  ['a short password', { password: 'short pw' }, 'password'],
  ['an empty organization name', { organization_name: '' }, 'organization_name'],
  ['a too long organization name', { organization_name: 'x'.repeat(201) }, 'organization_name'],
];
for (const [what, change, path] of invalid) {
  test(`${what} is refused with 400 naming ${path}`, async ({ t }) => {
    const res = await bootstrap(t, body('invalid@example.com', change));
    assert.is(res.status, 400);
    assert.is(res.body.code, 'validation_failed');
    assert.ok(
      res.body.errors.some((e: { path: string }) => e.path === path),
      JSON.stringify(res.body.errors),
    );
  });
}

test('unknown fields are refused', async ({ t }) => {
  const res = await bootstrap(t, body('unknown@example.com', { is_admin: true }));
  assert.is(res.status, 400);
  assert.is(res.body.code, 'validation_failed');
  assert.match(JSON.stringify(res.body.errors), 'is_admin');
});

test('the password is kept only as a salted scrypt hash, and the key secret only as its SHA-256', async ({
  t,
}) => {
  const password = 'a very secret passphrase';
  const one = await bootstrap(t, body('hash1@example.com', { password }));
  const two = await bootstrap(t, body('hash2@example.com', { password }));
  const { rows } = await t.db.pool.query(
    "SELECT type, data::text AS data FROM events WHERE type IN ('UserRegistered', 'ApiKeyIssued')",
  );
  const all = rows.map((r) => r.data).join('\n');
  assert.not.ok(all.includes(password));
  for (const res of [one, two]) assert.not.ok(all.includes(res.body.apiKey.split('.')[1]));
  const hashes = rows
    .filter((r) => r.type === 'UserRegistered')
    .map((r) => JSON.parse(r.data))
    .filter((d) => d.email.startsWith('hash'))
    .map((d) => d.passwordHash);
  assert.is(hashes.length, 2);
  assert.ok(hashes.every((h: string) => h.startsWith('scrypt$')));
  assert.is.not(hashes[0], hashes[1]); // per-user salt
});

test('the bootstrap is rate limited per client address: 429 problem with Retry-After', async () => {
  const t = await startTestApp({ ...accounts, env: { BOOTSTRAP_RATE_LIMIT: '2' } });
  try {
    const address = '192.0.2.10';
    for (let i = 0; i < 2; i++) {
      const res = await bootstrap(t, { email: `limit${i}@example.com` }, address);
      assert.is(res.status, 400); // counted even when invalid
    }
    const limited = await bootstrap(t, body('limit@example.com'), address);
    assert.is(limited.status, 429);
    assert.is(limited.body.code, 'rate_limited');
    assert.is(limited.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.ok(Number(limited.headers['retry-after']) > 0, JSON.stringify(limited.headers));
    // Another address is not limited.
    const other = await bootstrap(t, body('limit@example.com'), '192.0.2.11');
    assert.is(other.status, 201);
  } finally {
    await t.close();
  }
});

test.run();
