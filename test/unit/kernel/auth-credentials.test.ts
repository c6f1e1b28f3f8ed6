import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { generateKey, hashSecret, parseKey, secretMatches } from '../../../src/auth/keys.ts';
import { LastUsedRecorder } from '../../../src/auth/last-used.ts';
import { hashPassword, verifyPassword } from '../../../src/auth/password.ts';
import type { Pool } from '../../../src/db/pool.ts';

const test = suite('auth: key format, secret hashing, passwords, last-used throttle');

test('a new key is stk_{key_id}.{secret} with a 32-byte URL-safe secret, and parses back', () => {
  const key = generateKey();
  assert.match(key.apiKey, /^stk_[0-9a-f]{20}\.[A-Za-z0-9_-]{43}$/);
  assert.is(Buffer.from(key.secret, 'base64url').length, 32);
  assert.equal(parseKey(key.apiKey), { keyId: key.keyId, secret: key.secret });
  assert.is(key.prefix, `stk_${key.keyId}`);
  assert.is(key.secretHash, hashSecret(key.secret));
  assert.not.ok(key.secretHash.includes(key.secret));
  assert.is.not(generateKey().secret, key.secret);
});

test('malformed keys do not parse', () => {
  const { apiKey } = generateKey();
  for (const raw of [
    '',
    'stk_',
    apiKey.replace('stk_', 'sk_'),
    `${apiKey}x`,
    apiKey.replace('.', ''),
    ` ${apiKey}`,
  ]) {
    assert.is(parseKey(raw), undefined, raw);
  }
});

test('a secret matches its own hash only', () => {
  const one = generateKey();
  const two = generateKey();
  assert.ok(secretMatches(one.secret, one.secretHash));
  assert.not.ok(secretMatches(two.secret, one.secretHash));
  assert.not.ok(secretMatches(one.secret, 'abcd'));
});

test('passwords hash with scrypt and a per-user salt, and verify', async () => {
  const a = await hashPassword('correct horse battery');
  const b = await hashPassword('correct horse battery');
  assert.match(a, /^scrypt\$16384\$8\$1\$/);
  assert.is.not(a, b);
  assert.not.ok(a.includes('correct horse'));
  assert.ok(await verifyPassword('correct horse battery', a));
  assert.not.ok(await verifyPassword('correct horse batterz', a));
  assert.not.ok(await verifyPassword('x', 'md5$nope'));
});

test('last use is written once per key per interval, again after it', async () => {
  const writes: unknown[][] = [];
  const pool = { query: async (_sql: string, params: unknown[]) => writes.push(params) } as unknown as Pool;
  let now = 1_000_000;
  const recorder = new LastUsedRecorder(pool, 60_000, () => now);
  recorder.record('k1');
  recorder.record('k1');
  recorder.record('k2');
  now += 59_999;
  recorder.record('k1');
  await recorder.settled();
  assert.equal(writes, [['k1'], ['k2']]);
  now += 1;
  recorder.record('k1');
  await recorder.settled();
  assert.equal(writes, [['k1'], ['k2'], ['k1']]);
});

test('a failed last-use write is swallowed (it never fails a request)', async () => {
  const pool = { query: async () => Promise.reject(new Error('down')) } as unknown as Pool;
  const recorder = new LastUsedRecorder(pool);
  recorder.record('k1');
  await recorder.settled();
});

test.run();
