import * as assert from 'uvu/assert';
import { bearer, bootstrapAccount, call, issueKey } from '../../support/accounts.ts';
import { tablesSuite } from '../../support/tables.ts';

const test = tablesSuite('organization members: POST/GET /api/users');

test('a member joins the key organization; listed with the sign-up user; not seen by another organization', async ({
  t,
  key,
  otherKey,
}) => {
  const added = await call(t.app, 'POST', '/api/users', {
    headers: bearer(key),
    body: { email: 'Member.One@Example.com', first_name: 'Member', last_name: 'One' },
  });
  assert.is(added.status, 201, JSON.stringify(added.body));
  assert.is(added.body.email, 'member.one@example.com');
  const list = await call(t.app, 'GET', '/api/users', { headers: bearer(key) });
  assert.is(list.status, 200);
  assert.is(list.body.data.length, 2);
  assert.equal(list.body.data[1], added.body);
  const other = await call(t.app, 'GET', `/api/users/${added.body.id}`, { headers: bearer(otherKey) });
  assert.is(other.status, 404);
  assert.is((await call(t.app, 'GET', '/api/users', { headers: bearer(otherKey) })).body.data.length, 1);
});

test('an address already a user (member or sign-up) is a 409 naming email; a member cannot log in; bad input is 400', async ({
  t,
  key,
}) => {
  const body = { email: 'twice@example.com' };
  assert.is((await call(t.app, 'POST', '/api/users', { headers: bearer(key), body })).status, 201);
  const again = await call(t.app, 'POST', '/api/users', { headers: bearer(key), body });
  assert.is(again.status, 409);
  assert.is(again.body.code, 'email_taken');
  const signUp = await bootstrapAccount(t.app, { email: 'signup.member@example.com' }).catch((e: Error) => e);
  assert.ok(!(signUp instanceof Error));
  const taken = await call(t.app, 'POST', '/api/users', {
    headers: bearer(key),
    body: { email: 'signup.member@example.com' },
  });
  assert.is(taken.status, 409);
  const bootstrapTaken = await call(t.app, 'POST', '/api/auth/agent-bootstrap', {
    headers: { 'x-forwarded-for': '10.9.9.9' },
    body: { email: 'twice@example.com', password: 'a long enough password', organization_name: 'X' },
  });
  assert.is(bootstrapTaken.status, 409, 'a member address is not signed up again');
  const login = await call(t.app, 'POST', '/api/auth/login', {
    headers: { 'x-forwarded-for': '10.9.9.8' },
    body: { email: 'twice@example.com', password: 'anything at all', key_name: 'k' },
  });
  assert.is(login.status, 401);
  const bad = await call(t.app, 'POST', '/api/users', { headers: bearer(key), body: { email: 'nope' } });
  assert.is(bad.status, 400);
  assert.equal(
    bad.body.errors.map((e: { path: string }) => e.path),
    ['email'],
  );
  const reader = (await issueKey(t.app, key, ['keys:read'])).apiKey;
  assert.is(
    (await call(t.app, 'POST', '/api/users', { headers: bearer(reader), body: { email: 'r@example.com' } }))
      .status,
    403,
  );
});

test.run();
