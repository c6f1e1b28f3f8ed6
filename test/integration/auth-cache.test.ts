import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { authStateFor, createAuthenticator } from '../../src/auth/authenticator.ts';
import { loadConfig } from '../../src/config.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { PostgresEventStore } from '../../src/event-store/postgres.ts';
import { buildApp, type ZodApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/logger.ts';
import { Projections } from '../../src/projection/projections.ts';
import { accounts, bearer, bootstrapAccount, call, issueKey } from '../support/accounts.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * Two API processes over one database (here: two apps with their own pools, caches and runners).
 * A key cached by one is revoked through the other; the first must refuse it.
 */
interface Ctx {
  a: TestApp;
  b: { app: ZodApp; pool: Pool; close(): Promise<void> };
  rootKey: string;
}
const test = suite<Ctx>('auth: cached keys and revocation across processes');

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!condition()) throw new Error(`gave up waiting for ${what}`);
}

test.before(async (ctx) => {
  ctx.a = await startTestApp(accounts);
  const pool = createPool(ctx.a.db.url);
  const store = new PostgresEventStore(pool);
  const projections = new Projections(store, pool, accounts.projections);
  await projections.start();
  const app = await buildApp(
    {
      config: loadConfig({ DATABASE_URL: ctx.a.db.url, LOG_LEVEL: 'silent', TRUST_PROXY: 'true' }),
      store,
      pool,
      projections,
      logger: createLogger('silent'),
      clock: () => new Date(),
      authenticate: createAuthenticator(pool),
    },
    accounts.routes,
  );
  ctx.b = {
    app,
    pool,
    close: async () => {
      await app.close();
      await projections.stop();
      await store.close();
      await pool.end();
    },
  };
  ctx.rootKey = (await bootstrapAccount(ctx.a.app)).apiKey;
  await until(() => authStateFor(ctx.a.db.pool).cache.active && authStateFor(pool).cache.active, 'listeners');
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
  assert.is((await call(a.app, 'GET', '/api/me', { headers: bearer(key.apiKey) })).status, 200);
  assert.ok(authStateFor(a.db.pool).cache.get(key.keyId), 'cached');
  const wrong = `${key.apiKey.split('.')[0]}.${'A'.repeat(43)}`;
  assert.is((await call(a.app, 'GET', '/api/me', { headers: bearer(wrong) })).status, 401);
  assert.is((await call(a.app, 'GET', '/api/me', { headers: bearer(key.apiKey) })).status, 200);
});

test('revoked in this process: refused on the very next request although it was cached', async ({
  a,
  rootKey,
}) => {
  const key = await issueKey(a.app, rootKey, ['keys:read']);
  await call(a.app, 'GET', '/api/me', { headers: bearer(key.apiKey) });
  assert.ok(authStateFor(a.db.pool).cache.get(key.keyId), 'cached');
  assert.is(
    (await call(a.app, 'DELETE', `/api/keys/${key.keyId}`, { headers: bearer(rootKey) })).status,
    204,
  );
  assert.is((await call(a.app, 'GET', '/api/me', { headers: bearer(key.apiKey) })).status, 401);
});

test('revoked through another process: the notice drops it from this cache', async ({ a, b, rootKey }) => {
  const key = await issueKey(a.app, rootKey, ['keys:read']);
  assert.is((await call(b.app, 'GET', '/api/me', { headers: bearer(key.apiKey) })).status, 200);
  assert.ok(authStateFor(b.pool).cache.get(key.keyId), 'cached in b');
  const heard = authStateFor(b.pool).cache.invalidated(key.keyId);
  assert.is(
    (await call(a.app, 'DELETE', `/api/keys/${key.keyId}`, { headers: bearer(rootKey) })).status,
    204,
  );
  await heard;
  assert.is((await call(b.app, 'GET', '/api/me', { headers: bearer(key.apiKey) })).status, 401);
});

test('while the notice connection is down the cache is off; it comes back by itself', async ({
  a,
  b,
  rootKey,
}) => {
  const key = await issueKey(a.app, rootKey, ['keys:read']);
  await call(b.app, 'GET', '/api/me', { headers: bearer(key.apiKey) });
  const cache = authStateFor(b.pool).cache;
  assert.ok(cache.get(key.keyId));
  // Cut every LISTEN connection of this database, as a network failure would.
  await a.db.pool.query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
     WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`,
  );
  // Switching off (and on again) forgets every entry: nothing cached before the gap is trusted after it.
  await until(() => cache.get(key.keyId) === undefined, 'the cache to forget');
  assert.is((await call(b.app, 'GET', '/api/me', { headers: bearer(key.apiKey) })).status, 200);
  await until(() => cache.active, 'the listener to reconnect');
  await call(b.app, 'GET', '/api/me', { headers: bearer(key.apiKey) });
  assert.ok(cache.get(key.keyId));
});

test.run();
