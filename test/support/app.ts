import type { AddressInfo } from 'node:net';
import type { Authenticator } from '../../src/auth/scopes.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import type { Pool } from '../../src/db/pool.ts';
import { PostgresEventStore } from '../../src/event-store/postgres.ts';
import { type AppDeps, buildApp, type RouteModule, type ZodApp } from '../../src/http/app.ts';
import { createLogger } from '../../src/logger.ts';
import { Projections } from '../../src/projection/projections.ts';
import type { Projection } from '../../src/projection/types.ts';
import { freshDatabase, type TestDatabase } from './postgres.ts';

export interface TestApp {
  app: ZodApp;
  deps: AppDeps;
  db: TestDatabase;
  /** Base URL of the app listening on a loopback port (for real-socket tests). */
  url: string;
  close(): Promise<void>;
}

/**
 * The service's app over a fresh database with the given features, listening on a free loopback
 * port. Tests use `app.inject` for speed or `url` for a real socket.
 */
export async function startTestApp(options: {
  projections?: readonly Projection[];
  routes?: readonly RouteModule[];
  authenticator?: (pool: Pool) => Authenticator;
  env?: Record<string, string>;
  clock?: () => Date;
}): Promise<TestApp> {
  const db = await freshDatabase();
  const config: Config = loadConfig({
    LOG_LEVEL: 'silent',
    DATABASE_URL: db.url,
    // Tests play clients behind a proxy (X-Forwarded-For) so that per-address rate limits stay apart.
    TRUST_PROXY: 'true',
    ...options.env,
  });
  const logger = createLogger(config.LOG_LEVEL);
  const store = new PostgresEventStore(db.pool);
  const projections = new Projections(store, db.pool, options.projections ?? []);
  await projections.start();
  const deps: AppDeps = {
    config,
    store,
    pool: db.pool,
    projections,
    logger,
    clock: options.clock ?? (() => new Date()),
    authenticate: options.authenticator?.(db.pool),
  };
  const app = await buildApp(deps, options.routes ?? []);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    deps,
    db,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
      await projections.stop();
      await store.close();
      await db.drop();
    },
  };
}
