import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import { operators } from '../../../src/auth/operators.ts';
import { bearer, bootstrapAccount } from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { consoleSession, cookiesOf, postForm, signIn as signInAs } from '../../support/console.ts';

/*
 * The console's sign-in and access rules at the HTTP level (issue 36): the browser suite
 * (test/e2e/console/) drives the pages; this one the edges a browser does not show.
 */
const test = suite<{ t: TestApp; credential: string; apiKey: string }>(
  'console: sign-in, sessions, CSRF, headers',
);

test.before(async (ctx) => {
  ctx.t = await startTestApp({
    projections: service.projections,
    routes: service.routes,
    authenticator: createAuthenticator,
  });
  ctx.credential = (await operators.issue(ctx.t.db.pool, 'bob', 'test')).credential;
  ctx.apiKey = (await bootstrapAccount(ctx.t.app)).apiKey;
});
test.after(async (ctx) => {
  await ctx.t.close();
});

const signIn = (t: TestApp, credential: string, headers: Record<string, string> = {}) =>
  signInAs(t.app, credential, headers);
const session = (t: TestApp, credential: string) => consoleSession(t.app, credential);

test('sign-in: a session cookie with every flag, Secure behind HTTPS; the form token must match its cookie', async ({
  t,
  credential,
}) => {
  const plain = await signIn(t, credential);
  assert.is(plain.statusCode, 303);
  assert.is(plain.headers.location, '/admin/work');
  const raw = cookiesOf(plain.headers['set-cookie']).get('stk_console')!.raw;
  assert.match(raw, /; Path=\/admin; Max-Age=28800; HttpOnly; SameSite=Strict$/);
  // Behind a proxy TRUST_PROXY trusts that says the request came over HTTPS: Secure.
  const https = await signIn(t, credential, { 'x-forwarded-proto': 'https' });
  assert.match(cookiesOf(https.headers['set-cookie']).get('stk_console')!.raw, /; Secure$/);
  // Without the form's cookie (another site's form): refused, nothing signed in.
  const forged = await t.app.inject({
    method: 'POST',
    url: '/admin/sign-in',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: `_csrf=abc&credential=${encodeURIComponent(credential)}`,
  });
  assert.is(forged.statusCode, 403);
  assert.is(forged.headers['set-cookie'], undefined);
  // A `next` elsewhere is not followed.
  const form = await t.app.inject({ method: 'GET', url: '/admin/sign-in?next=//evil.example/x' });
  assert.match(form.body, /name="next" value="\/admin\/projections"/);
});

test('a wrong, malformed or API-key credential is refused with the form again (401)', async ({
  t,
  apiKey,
  credential,
}) => {
  for (const wrong of [apiKey, 'nonsense', `${credential.slice(0, -2)}xx`]) {
    const res = await signIn(t, wrong);
    assert.is(res.statusCode, 401, wrong);
    assert.match(res.body, /not valid/);
    assert.not.ok(cookiesOf(res.headers['set-cookie']).has('stk_console'));
  }
});

test('a session opens the console and nothing of /api; a key opens nothing of the console', async ({
  t,
  credential,
  apiKey,
}) => {
  const { cookie } = await session(t, credential);
  for (const path of [
    '/admin/projections',
    '/admin/events',
    '/admin/history',
    '/admin/work',
    '/admin/organizations',
  ]) {
    const res = await t.app.inject({ method: 'GET', url: path, headers: { cookie } });
    assert.is(res.statusCode, 200, path);
    assert.match(res.headers['content-security-policy'] as string, /script-src 'self'/);
    assert.not.match(res.body, /<script>|style="/, `${path}: nothing inline`);
  }
  assert.is((await t.app.inject({ method: 'GET', url: '/api/me', headers: { cookie } })).statusCode, 401);
  const keyed = await t.app.inject({
    method: 'GET',
    url: '/admin/work',
    headers: { ...bearer(apiKey), accept: 'text/html' },
  });
  assert.is(keyed.statusCode, 303);
  assert.match(keyed.headers.location as string, /^\/admin\/sign-in\?next=%2Fadmin%2Fwork$/);
});

test('every state-changing request needs the CSRF token of its session', async ({ t, credential }) => {
  const { cookie, csrf } = await session(t, credential);
  const other = await session(t, credential);
  const post = (token?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/admin/projections/columns/retry',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: token === undefined ? '' : `_csrf=${token}`,
    });
  assert.is((await post()).statusCode, 403);
  assert.is((await post(other.csrf)).statusCode, 403, "another session's token");
  // With its own token the action runs: columns is not failed, so there is nothing to retry.
  const res = await post(csrf);
  assert.is(res.statusCode, 409);
  assert.match(res.json().detail, /not failed/);
});

test('revoking an operator ends their sessions; signing out ends one', async ({ t }) => {
  const { credential } = await operators.issue(t.db.pool, 'carol', 'test');
  const a = await session(t, credential);
  const b = await session(t, credential);
  const out = await t.app.inject({
    method: 'POST',
    url: '/admin/sign-out',
    headers: { cookie: a.cookie, 'content-type': 'application/x-www-form-urlencoded' },
    payload: `_csrf=${a.csrf}`,
  });
  assert.is(out.statusCode, 303);
  assert.match(cookiesOf(out.headers['set-cookie']).get('stk_console')!.raw, /Max-Age=0/);
  assert.is(
    (await t.app.inject({ method: 'GET', url: '/admin/work', headers: { cookie: a.cookie } })).statusCode,
    401,
  );
  assert.is(
    (await t.app.inject({ method: 'GET', url: '/admin/work', headers: { cookie: b.cookie } })).statusCode,
    200,
  );
  assert.ok(await operators.revoke(t.db.pool, 'carol'));
  assert.is(
    (await t.app.inject({ method: 'GET', url: '/admin/work', headers: { cookie: b.cookie } })).statusCode,
    401,
  );
  assert.is((await signIn(t, credential)).statusCode, 401, 'a revoked credential signs in no more');
});

test('a grant out of range is refused with what is wrong, as `stk admin credits grant` refuses it', async ({
  t,
  credential,
}) => {
  const { organizationId } = await bootstrapAccount(t.app);
  const session = await consoleSession(t.app, credential);
  for (const amount of ['0', '5000000', 'ten']) {
    const res = await t.app.inject({
      method: 'POST',
      url: `/admin/organizations/${organizationId}/credits`,
      headers: {
        cookie: session.cookie,
        accept: 'text/html',
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams({ _csrf: session.csrf, amount, reason: 'x' }).toString(),
    });
    assert.is(res.statusCode, 400, amount);
    assert.match(res.body, /<code>amount<\/code>: a whole number/);
  }
  const granted = await postForm(t.app, session, `/admin/organizations/${organizationId}/credits`, {
    amount: '7',
    reason: 'a test grant',
  });
  assert.is(granted.statusCode, 303);
  const shown = await t.app.inject({
    method: 'GET',
    url: `/admin/organizations/${organizationId}`,
    headers: { cookie: session.cookie },
  });
  assert.match(shown.body, /a test grant/);
});

test('the files are served with the page policy; an unknown live page is a 404', async ({
  t,
  credential,
}) => {
  const js = await t.app.inject({ method: 'GET', url: '/admin/assets/uPlot.iife.min.js' });
  assert.is(js.statusCode, 200);
  assert.match(js.headers['content-type'] as string, /javascript/);
  const again = await t.app.inject({
    method: 'GET',
    url: '/admin/assets/uPlot.iife.min.js',
    headers: { 'if-none-match': js.headers.etag as string },
  });
  assert.is(again.statusCode, 304);
  assert.is((await t.app.inject({ method: 'GET', url: '/admin/assets/..%2Fpackage.json' })).statusCode, 404);
  const { cookie } = await session(t, credential);
  assert.is(
    (await t.app.inject({ method: 'GET', url: '/admin/live?page=nope', headers: { cookie } })).statusCode,
    404,
  );
});

test.run();
