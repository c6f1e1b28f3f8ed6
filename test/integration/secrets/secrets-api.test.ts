import * as assert from 'uvu/assert';
import { secretStream } from '../../../src/domain/secrets/secret-state.ts';
import { bearer, bootstrapAccount, call, issueKey } from '../../support/accounts.ts';
import { putSecret, runSecretsSuite, secretPath, secretsSuite } from '../../support/secrets.ts';

const test = secretsSuite('secrets API: PUT, GET, list, DELETE; never a value');

const BULLETS = '••••••••';

test('PUT creates (201, Location), PUT again replaces (200, next version); no answer holds the value', async (ctx) => {
  const { t, key } = ctx;
  const first = ctx.value('WXYZ');
  const created = await putSecret(t.app, key, 'OPENAI_KEY', first);
  assert.is(created.status, 201, JSON.stringify(created.body));
  assert.is(created.headers.location, '/api/secrets/OPENAI_KEY');
  assert.is(created.headers['cache-control'], 'no-store');
  assert.equal(
    { ...created.body, createdAt: undefined, updatedAt: undefined },
    {
      name: 'OPENAI_KEY',
      version: 1,
      maskedValue: `${BULLETS}WXYZ`,
      lastUsedAt: null,
      createdAt: undefined,
      updatedAt: undefined,
    },
  );
  const second = ctx.value('abcd');
  const replaced = await putSecret(t.app, key, 'OPENAI_KEY', second);
  assert.is(replaced.status, 200);
  assert.is(replaced.headers.location, undefined);
  assert.is(replaced.body.version, 2);
  assert.is(replaced.body.maskedValue, `${BULLETS}abcd`);
  assert.is(replaced.body.createdAt, created.body.createdAt);
  const got = await call(t.app, 'GET', secretPath('OPENAI_KEY'), { headers: bearer(key) });
  assert.is(got.status, 200);
  assert.is(got.headers['cache-control'], 'no-store');
  assert.equal(got.body, replaced.body);
  for (const answer of [created, replaced, got]) {
    const text = JSON.stringify(answer);
    assert.not.ok(text.includes(first) || text.includes(second));
  }
});

test('the events hold ciphertext and a key id: no value, no mask', async (ctx) => {
  const { t, key, account } = ctx;
  const value = ctx.value('TAIL');
  await putSecret(t.app, key, 'IN_THE_LOG', value);
  const events = await t.deps.store.readStream(secretStream.name(account.organizationId, 'IN_THE_LOG'));
  assert.is(events.length, 1);
  assert.equal(Object.keys(events[0]!.data as object).sort(), [
    'at',
    'ciphertext',
    'keyId',
    'name',
    'organizationId',
    'version',
  ]);
  const text = JSON.stringify({ data: events[0]!.data, metadata: events[0]!.metadata });
  assert.not.ok(text.includes(value));
  assert.not.ok(text.includes('TAIL'));
  assert.not.ok(text.includes('•'));
  assert.is(events[0]!.metadata.actor, account.keyId);
});

test('masking: eight bullets and the last 4 characters, the bullets alone below 12 characters', async (ctx) => {
  const { t, key } = ctx;
  const cases: [string, string][] = [
    ['x', BULLETS],
    ['12345678901', BULLETS],
    ['123456789012', `${BULLETS}9012`],
    ['ab€dé-ünïcødé😀x', `${BULLETS}dé😀x`],
  ];
  for (const [value, masked] of cases) {
    ctx.values.push(value);
    const res = await putSecret(t.app, key, 'MASKED', value);
    assert.ok(res.status === 200 || res.status === 201, JSON.stringify(res.body));
    assert.is(res.body.maskedValue, masked, value);
    const got = await call(t.app, 'GET', secretPath('MASKED'), { headers: bearer(key) });
    assert.is(got.body.maskedValue, masked, value);
  }
});

test('a value that looks like our mask is refused (400) and the stored value stays', async (ctx) => {
  const { t, key, account } = ctx;
  await putSecret(t.app, key, 'KEEP', ctx.value('real'));
  const shown = (await call(t.app, 'GET', secretPath('KEEP'), { headers: bearer(key) })).body.maskedValue;
  for (const masked of [shown, BULLETS]) {
    const res = await putSecret(t.app, key, 'KEEP', masked);
    assert.is(res.status, 400);
    assert.is(res.body.code, 'validation_failed');
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      ['value'],
    );
  }
  const events = await t.deps.store.readStream(secretStream.name(account.organizationId, 'KEEP'));
  assert.is(events.length, 1);
  assert.is((await call(t.app, 'GET', secretPath('KEEP'), { headers: bearer(key) })).body.version, 1);
});

test('values of 1 to 32,768 bytes; empty, too long, not a string or unknown fields: 400 naming the field', async (ctx) => {
  const { t, key, account } = ctx;
  const largest = ctx.value('').padEnd(32_766, 'x') + 'é'; // 32,768 bytes in UTF-8
  assert.is(Buffer.byteLength(largest), 32_768);
  assert.is((await putSecret(t.app, key, 'BIG', largest)).status, 201);
  const tooLong = `${largest.slice(0, -1)}éé`;
  ctx.values.push(tooLong);
  const cases: [unknown, string][] = [
    [{ value: '' }, 'value'],
    [{ value: tooLong }, 'value'],
    [{ value: 42 }, 'value'],
    [{}, 'value'],
    [{ value: 'fine-value-here', extra: true }, 'extra'],
  ];
  for (const [body, path] of cases) {
    const res = await call(t.app, 'PUT', secretPath('BIG'), { headers: bearer(key), body });
    assert.is(res.status, 400, JSON.stringify(body).slice(0, 40));
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      [path],
    );
    assert.not.ok(JSON.stringify(res.body).includes(largest.slice(0, 20)));
  }
  const events = await t.deps.store.readStream(secretStream.name(account.organizationId, 'BIG'));
  assert.is(events.length, 1);
});

test('names: letters, digits and _, not first a digit, at most 64, case-sensitive', async (ctx) => {
  const { t, key } = ctx;
  for (const name of ['1abc', 'has-dash', 'has.dot', 'a'.repeat(65), 'sp%20ace']) {
    const res = await putSecret(t.app, key, name, ctx.value());
    assert.is(res.status, 400, name);
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      ['params.name'],
    );
  }
  assert.is((await putSecret(t.app, key, `_${'a'.repeat(63)}`, ctx.value())).status, 201);
  assert.is((await putSecret(t.app, key, 'Token', ctx.value('UPPR'))).status, 201);
  assert.is((await putSecret(t.app, key, 'token', ctx.value('lowr'))).status, 201);
  const upper = await call(t.app, 'GET', secretPath('Token'), { headers: bearer(key) });
  assert.is(upper.body.maskedValue, `${BULLETS}UPPR`);
  assert.is((await call(t.app, 'GET', secretPath('TOKEN'), { headers: bearer(key) })).status, 404);
});

test('GET /api/secrets pages by name with a cursor; only the organization own', async (ctx) => {
  const { t } = ctx;
  const owner = await bootstrapAccount(t.app);
  const names = ['b_two', 'a_one', 'e_five', 'c_three', 'd_four'];
  for (const name of names) await putSecret(t.app, owner.apiKey, name, ctx.value());
  await putSecret(t.app, ctx.otherKey, 'a_zero', ctx.value());
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const query: string = cursor ? `?limit=2&cursor=${cursor}` : '?limit=2';
    const page = await call(t.app, 'GET', `/api/secrets${query}`, { headers: bearer(owner.apiKey) });
    assert.is(page.status, 200);
    assert.is(page.headers['cache-control'], 'no-store');
    seen.push(...page.body.data.map((s: { name: string }) => s.name));
    for (const item of page.body.data) assert.match(item.maskedValue, /^•{8}/);
    cursor = page.body.nextCursor;
    pages++;
  } while (cursor);
  assert.is(pages, 3);
  assert.equal(seen, [...names].sort());
  for (const query of ['?limit=0', '?limit=101', '?cursor=bm8tc3VjaA']) {
    const res = await call(t.app, 'GET', `/api/secrets${query}`, { headers: bearer(owner.apiKey) });
    assert.is(res.status, 400, query);
  }
});

test('DELETE: 204, then GET 404, DELETE 404; the name can be used again from version 1', async (ctx) => {
  const { t, key } = ctx;
  await putSecret(t.app, key, 'GONE', ctx.value());
  await putSecret(t.app, key, 'GONE', ctx.value());
  const deleted = await call(t.app, 'DELETE', secretPath('GONE'), { headers: bearer(key) });
  assert.is(deleted.status, 204);
  assert.is(deleted.headers['cache-control'], 'no-store');
  assert.is((await call(t.app, 'GET', secretPath('GONE'), { headers: bearer(key) })).status, 404);
  const again = await call(t.app, 'DELETE', secretPath('GONE'), { headers: bearer(key) });
  assert.is(again.status, 404);
  assert.is(again.body.code, 'not_found');
  const list = await call(t.app, 'GET', '/api/secrets?limit=100', { headers: bearer(key) });
  assert.not.ok(list.body.data.some((s: { name: string }) => s.name === 'GONE'));
  const reborn = await putSecret(t.app, key, 'GONE', ctx.value());
  assert.is(reborn.status, 201);
  assert.is(reborn.body.version, 1);
});

test('scopes: secrets:read reads, secrets:write writes, neither does the other (403)', async (ctx) => {
  const { t, key } = ctx;
  await putSecret(t.app, key, 'SCOPED', ctx.value());
  const reader = (await issueKey(t.app, key, ['secrets:read'])).apiKey;
  const writer = (await issueKey(t.app, key, ['secrets:write'])).apiKey;
  const neither = (await issueKey(t.app, key, ['tables:read', 'prompts:write'])).apiKey;
  const reads = [
    ['GET', '/api/secrets'],
    ['GET', secretPath('SCOPED')],
  ] as const;
  const writes = [
    ['PUT', secretPath('SCOPED'), { value: ctx.value() }],
    ['DELETE', secretPath('NOT_THERE')],
  ] as const;
  for (const [method, path] of reads) {
    assert.is((await call(t.app, method, path, { headers: bearer(reader) })).status, 200, path);
    for (const k of [writer, neither]) {
      const res = await call(t.app, method, path, { headers: bearer(k) });
      assert.is(res.status, 403, `${method} ${path}`);
      assert.is(res.body.scope, 'secrets:read');
    }
  }
  for (const [method, path, body] of writes) {
    for (const k of [reader, neither]) {
      const res = await call(t.app, method, path, { headers: bearer(k), body });
      assert.is(res.status, 403, `${method} ${path}`);
      assert.is(res.body.scope, 'secrets:write');
    }
  }
  assert.is(
    (
      await call(t.app, 'PUT', secretPath('SCOPED'), {
        headers: bearer(writer),
        body: { value: ctx.value() },
      })
    ).status,
    200,
  );
  for (const [method, path] of [...reads, ['PUT', secretPath('X')], ['DELETE', secretPath('X')]] as const) {
    assert.is((await call(t.app, method, path)).status, 401, `${method} ${path}`);
  }
});

test('organizations: the same name is another secret in another organization', async (ctx) => {
  const { t, key, otherKey } = ctx;
  await putSecret(t.app, key, 'SHARED_NAME', ctx.value('mine'));
  assert.is((await call(t.app, 'GET', secretPath('SHARED_NAME'), { headers: bearer(otherKey) })).status, 404);
  assert.is(
    (await call(t.app, 'DELETE', secretPath('SHARED_NAME'), { headers: bearer(otherKey) })).status,
    404,
  );
  const theirs = await putSecret(t.app, otherKey, 'SHARED_NAME', ctx.value('thrs'));
  assert.is(theirs.status, 201);
  const list = await call(t.app, 'GET', '/api/secrets?limit=100', { headers: bearer(otherKey) });
  const theirNames = list.body.data.map((s: { name: string }) => s.name);
  assert.ok(theirNames.includes('SHARED_NAME'));
  assert.not.ok(theirNames.includes('OPENAI_KEY'));
  const mine = await call(t.app, 'GET', secretPath('SHARED_NAME'), { headers: bearer(key) });
  assert.is(mine.body.maskedValue, '••••••••mine');
  assert.is(mine.body.version, 1);
});

test('resolveSecret decrypts the current value and records its use; unknown names are 404', async (ctx) => {
  const { t, key, account } = ctx;
  const vault = t.deps.parts.vault;
  const value = ctx.value('used');
  await putSecret(t.app, key, 'RESOLVED', ctx.value());
  await putSecret(t.app, key, 'RESOLVED', value);
  assert.is(await vault.resolveSecret(account.organizationId, 'RESOLVED'), value);
  await vault.lastUsed.settled();
  const got = await call(t.app, 'GET', secretPath('RESOLVED'), { headers: bearer(key) });
  assert.type(got.body.lastUsedAt, 'string');
  for (const [org, name] of [
    [account.organizationId, 'NOPE'],
    [ctx.other.organizationId, 'RESOLVED'],
  ] as const) {
    try {
      await vault.resolveSecret(org, name);
      assert.unreachable('resolved');
    } catch (error) {
      assert.is((error as { code?: string }).code, 'not_found');
    }
  }
});

runSecretsSuite(test);
