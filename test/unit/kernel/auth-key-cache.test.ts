import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { VerifiedKeyCache } from '../../../src/auth/key-cache.ts';
import type { Principal } from '../../../src/auth/scopes.ts';

const test = suite('auth: the cache of verified keys');
const principal = (keyId: string): Principal => ({
  keyId,
  organizationId: 'o',
  userId: 'u',
  scopes: new Set(['keys:read']),
});

test('serves nothing until enabled, and forgets everything when switched', () => {
  const cache = new VerifiedKeyCache();
  cache.set('k', 'h', principal('k'), cache.generation);
  assert.is(cache.get('k'), undefined);
  cache.setEnabled(true);
  cache.set('k', 'h', principal('k'), cache.generation);
  assert.is(cache.get('k')?.secretHash, 'h');
  cache.setEnabled(false);
  assert.is(cache.get('k'), undefined);
  cache.setEnabled(true);
  assert.is(cache.get('k'), undefined);
});

test('a lookup that raced an invalidation is not stored', () => {
  const cache = new VerifiedKeyCache();
  cache.setEnabled(true);
  const before = cache.generation; // a request reads this, then queries the database...
  cache.invalidate('k'); // ...while the key is revoked
  cache.set('k', 'h', principal('k'), before);
  assert.is(cache.get('k'), undefined);
  cache.set('k', 'h', principal('k'), cache.generation);
  cache.invalidate('k');
  assert.is(cache.get('k'), undefined);
});

test('entries expire, and the oldest goes first when full', () => {
  let now = 0;
  const cache = new VerifiedKeyCache(1000, 2, () => now);
  cache.setEnabled(true);
  cache.set('a', 'h', principal('a'), cache.generation);
  cache.set('b', 'h', principal('b'), cache.generation);
  cache.set('c', 'h', principal('c'), cache.generation);
  assert.is(cache.get('a'), undefined);
  assert.ok(cache.get('b') && cache.get('c'));
  now = 1000;
  assert.is(cache.get('b'), undefined);
});

test('invalidated(keyId) resolves at that key’s invalidation', async () => {
  const cache = new VerifiedKeyCache();
  let done = false;
  const waiting = cache.invalidated('k').then(() => {
    done = true;
  });
  cache.invalidate('other');
  await Promise.resolve();
  assert.not.ok(done);
  cache.invalidate('k');
  await waiting;
  assert.ok(done);
});

test.run();
