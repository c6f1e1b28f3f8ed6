import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createPool, type Pool } from '../../../src/db/pool.ts';
import type { ServiceDeps } from '../../../src/deps.ts';
import type { ZodApp } from '../../../src/http/routes.ts';
import { accounts, bearer, bootstrapAccount, call, issueKey, type Target } from '../../support/accounts.ts';
import { serveApp, startTestApp, type TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';

/**
 * Two API processes over one database (here: two apps with their own pools, caches and runners).
 * A key cached by one is revoked through the other; the first must refuse it.
 */
interface Ctx {
  a: TestApp;
  b: { app: ZodApp; deps: ServiceDeps; pool: Pool; close(): Promise<void> };
  rootKey: string;
}
const test = suite<Ctx>('auth: cached keys and revocation across processes');

/** GET /api/me with `apiKey` on one of the two apps: its status. */
const meStatus = async (on: Target, apiKey: string) =>
  (await call(on, 'GET', '/api/me', { headers: bearer(apiKey) })).status;

/** DELETE /api/keys/:id with `rootKey`: its status. */
const revokeStatus = async (on: Target, rootKey: string, keyId: string) =>
  (await call(on, 'DELETE', `/api/keys/${keyId}`, { headers: bearer(rootKey) })).status;

test.before(async (ctx) => {
  ctx.a = await startTestApp(accounts);
  // The second process: its own pool, so its own auth state, cache and notice listener.
  const pool = createPool(ctx.a.db.url);
  const served = await serveApp({ url: ctx.a.db.url, pool }, accounts);
  ctx.b = {
    app: served.app,
    deps: served.deps,
    pool,
    close: async () => {
      await served.close();
      await pool.end();
    },
  };
  ctx.rootKey = (await bootstrapAccount(ctx.a.app)).apiKey;
  await eventually(
    'listeners',
    () => ctx.a.deps.parts.auth.cache.active && served.deps.parts.auth.cache.active,
  );
});
test.after(async (ctx) => {
  await ctx.b.close();
  await ctx.a.close();
});

test('a key used once is served from the cache; a wrong secret for it is still refused', async ({
  a,
  rootKey,
}) => {
  const key = await issueKey(a.app, rootKey, ['keys:read']);
  assert.is(await meStatus(a, key.apiKey), 200);
  assert.ok(a.deps.parts.auth.cache.get(key.keyId), 'cached');
  const wrong = `${key.apiKey.split('.')[0]}.${'A'.repeat(43)}`;
  assert.is(await meStatus(a, wrong), 401);
  assert.is(await meStatus(a, key.apiKey), 200);
});

test('revoked in this process: refused on the very next request although it was cached', async ({
  a,
  rootKey,
}) => {
  const key = await issueKey(a.app, rootKey, ['keys:read']);
  await meStatus(a, key.apiKey);
  assert.ok(a.deps.parts.auth.cache.get(key.keyId), 'cached');
  assert.is(await revokeStatus(a, rootKey, key.keyId), 204);
  assert.is(await meStatus(a, key.apiKey), 401);
});

test('revoked through another process: the notice drops it from this cache', async ({ a, b, rootKey }) => {
  const key = await issueKey(a.app, rootKey, ['keys:read']);
  assert.is(await meStatus(b, key.apiKey), 200);
  assert.ok(b.deps.parts.auth.cache.get(key.keyId), 'cached in b');
  const heard = b.deps.parts.auth.cache.invalidated(key.keyId);
  assert.is(await revokeStatus(a, rootKey, key.keyId), 204);
  await heard;
  assert.is(await meStatus(b, key.apiKey), 401);
});

test('while the notice connection is down the cache is off; it comes back by itself', async ({
  a,
  b,
  rootKey,
}) => {
  const key = await issueKey(a.app, rootKey, ['keys:read']);
  await meStatus(b, key.apiKey);
  const cache = b.deps.parts.auth.cache;
  assert.ok(cache.get(key.keyId));
  // Cut every LISTEN connection of this database, as a network failure would.
  await a.db.pool.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
     WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
  );
  // Switching off (and on again) forgets every entry: nothing cached before the gap is trusted after it.
  await eventually('the cache to forget', () => cache.get(key.keyId) === undefined);
  assert.is(await meStatus(b, key.apiKey), 200);
  await eventually('the listener to reconnect', () => cache.active);
  await meStatus(b, key.apiKey);
  assert.ok(cache.get(key.keyId));
});

test.run();
