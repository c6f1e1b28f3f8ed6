import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

const test = suite<{ t: TestApp; key: string }>('HTTP edge: body content types and poisoned JSON');

test.before(async (ctx) => {
  ctx.t = await startTestApp({
    projections: service.projections,
    routes: service.routes,
    authenticator: createAuthenticator,
  });
  ctx.key = (await bootstrapAccount(ctx.t.app)).apiKey;
});
test.after(async (ctx) => {
  await ctx.t.close();
});

const post = (t: TestApp, key: string, contentType: string, payload: string) =>
  t.app
    .inject({
      method: 'POST',
      url: '/api/tables',
      headers: { ...bearer(key), 'content-type': contentType },
      payload,
    })
    .then((res) => ({ status: res.statusCode, type: String(res.headers['content-type']), body: res.json() }));

const tableNames = async (t: TestApp, key: string) =>
  (await call(t.app, 'GET', '/api/tables', { headers: bearer(key) })).body.data.map(
    (table: { name: string }) => table.name,
  );

test('a JSON body sent as text/plain is a 415 unsupported_media_type, as application/xml is', async ({
  t,
  key,
}) => {
  for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/xml']) {
    const res = await post(t, key, type, '{"name":"x"}');
    assert.is(res.status, 415, `${type}: ${JSON.stringify(res.body)}`);
    assert.match(res.type, /^application\/problem\+json/);
    assert.is(res.body.code, 'unsupported_media_type', type);
  }
  assert.equal(await tableNames(t, key), []);
  const json = await post(t, key, 'application/json; charset=utf-8', '{"name":"x"}');
  assert.is(json.status, 201, JSON.stringify(json.body));
});

test('valid JSON with a __proto__ or constructor.prototype key is a 400 saying so; nothing is made', async ({
  t,
  key,
}) => {
  const poisoned = [
    '{"name":"p1","__proto__":{"admin":true}}',
    '{"name":"p2","constructor":{"prototype":{"admin":true}}}',
    '{"name":"p3","nested":[{"deep":{"__proto__":{}}}]}',
  ];
  for (const payload of poisoned) {
    const res = await post(t, key, 'application/json', payload);
    assert.is(res.status, 400, payload);
    assert.is(res.body.code, 'malformed_json', payload);
    assert.match(res.body.detail, /"__proto__" or "constructor\.prototype" key, which is refused/, payload);
  }
  // Not JSON at all is still told so.
  const broken = await post(t, key, 'application/json', '{"name":');
  assert.is(broken.status, 400);
  assert.is(broken.body.code, 'malformed_json');
  assert.is(broken.body.detail, 'The request body is not valid JSON.');
  // A constructor key that is no prototype's holder is an ordinary key (refused here as unknown).
  const plain = await post(t, key, 'application/json', '{"name":"p4","constructor":"x"}');
  assert.is(plain.status, 400);
  assert.is(plain.body.code, 'validation_failed');
  const names = await tableNames(t, key);
  assert.ok(
    ['p1', 'p2', 'p3', 'p4'].every((name) => !names.includes(name)),
    names.join(),
  );
});

test.run();
