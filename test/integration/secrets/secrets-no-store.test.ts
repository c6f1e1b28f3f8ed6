import * as assert from 'uvu/assert';
import { bearer, call, issueKey } from '../../support/accounts.ts';
import { runSecretsSuite, secretPath, secretsSuite } from '../../support/secrets.ts';

const test = secretsSuite('secrets API: Cache-Control no-store on every answer, 401 and 403 included');

/** Every route that shows a secret (masked) or a webhook's signing secret, with a body it would take. */
const routes = (value: string): [string, string, object | undefined][] => [
  ['GET', '/api/secrets', undefined],
  ['GET', secretPath('SOME_NAME'), undefined],
  ['PUT', secretPath('SOME_NAME'), { value }],
  ['DELETE', secretPath('SOME_NAME'), undefined],
  ['POST', '/api/webhooks', { url: 'https://hooks.example.com/in', events: ['table.created'] }],
  ['POST', '/api/webhooks/whk_unknown/rotate-secret', undefined],
];

test('401 without a key or with an unknown one, 403 with a key lacking the scope: each says no-store', async (ctx) => {
  const { t, key } = ctx;
  const { apiKey: tablesOnly } = await issueKey(t.app, key, ['tables:read']);
  const callers: [string, Record<string, string>, number][] = [
    ['no key', {}, 401],
    ['an unknown key', bearer('stk_nope.nope'), 401],
    ['a key without the scope', bearer(tablesOnly), 403],
  ];
  const answers = [];
  const expected = [];
  for (const [method, path, body] of routes(ctx.value())) {
    for (const [who, headers, status] of callers) {
      const res = await call(t.app, method, path, { headers, body });
      answers.push({ method, path, who, status: res.status, cacheControl: res.headers['cache-control'] });
      expected.push({ method, path, who, status, cacheControl: 'no-store' });
    }
  }
  assert.equal(answers, expected);
});

test('a refused body (400) and an unknown secret (404) say no-store too', async (ctx) => {
  const { t, key } = ctx;
  const invalid = await call(t.app, 'PUT', secretPath('SOME_NAME'), { headers: bearer(key), body: {} });
  assert.is(invalid.status, 400);
  assert.is(invalid.headers['cache-control'], 'no-store');
  const unknown = await call(t.app, 'GET', secretPath('NOT_THERE'), { headers: bearer(key) });
  assert.is(unknown.status, 404);
  assert.is(unknown.headers['cache-control'], 'no-store');
});

runSecretsSuite(test);
