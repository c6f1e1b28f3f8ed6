import type { AddressInfo } from 'node:net';
import type { DestinationStream } from 'pino';
import { makeServiceParts } from '../../app/parts.ts';
import type { AuthenticatorDeps } from '../../services/accounts/authenticator.ts';
import type { Authenticator } from '../../src/auth/scopes.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { PostgresEventStore } from '../../src/event-store/postgres.ts';
import type { WorkerFactory } from '../../src/feature.ts';
import { buildApp } from '../../src/http/app.ts';
import type { RouteModule, ZodApp } from '../../src/http/routes.ts';
import { createLogger } from '../../src/logger.ts';
import { Projections } from '../../src/projection/projections.ts';
import type { Projection } from '../../src/projection/types.ts';
import { wakeOnCommit } from '../../src/work/batch.ts';
import { Workers } from '../../src/work/workers.ts';
import { checkResponse } from './conformance.ts';
import { freshDatabase, type TestDatabase } from './postgres.ts';
import {
  registerConfigSecrets,
  registryOf,
  type SecretRegistry,
  scanningLog,
  scanResponse,
} from './secret-scan.ts';
import { testRegistry } from './test-streams.ts';

export interface AppOptions {
  projections?: readonly Projection[];
  routes?: readonly RouteModule[];
  authenticator?: (deps: AuthenticatorDeps) => Authenticator;
  env?: Record<string, string>;
  clock?: () => Date;
  /** Background workers (src/work/), started after the projections as the service starts them. */
  workers?: readonly WorkerFactory[];
  /**
   * Where the log lines go besides the secret scan (test/support/secret-scan.ts): nowhere when
   * neither this nor an `env` LOG_LEVEL is given (the scan reads them at `trace`), else stdout.
   */
  logTo?: DestinationStream;
  /** After each projection batch commit (the service wakes its workers there: app/service.ts). */
  onCommitted?: (projection: string, applied: number) => void;
  /**
   * The whole-suite checks (conformance and the secret scan, with logs at `trace`): on for tests, off
   * for benchmarks, which measure the service and not the checker.
   */
  checks?: boolean;
}

export interface ServedApp {
  app: ZodApp;
  deps: ServiceDeps;
  /** Base URL of the app listening on a loopback port (for real-socket tests). */
  url: string;
  /** Stops the app, its projections and its store; the database and its pool are the caller's. */
  close(): Promise<void>;
}

export interface TestApp extends ServedApp {
  db: TestDatabase;
}

/**
 * Resolves once every projection of the app has applied the store's last event: what workers wrote
 * (a run's cells, its end) is then in every read model, not only in the one a test polled.
 */
export async function caughtUp(t: ServedApp): Promise<void> {
  await t.deps.projections.waitFor(await t.deps.store.head());
}

/**
 * The service's app over a fresh database with the given features, listening on a free loopback
 * port. Tests use `app.inject` for speed or `url` for a real socket.
 */
export async function startTestApp(options: AppOptions): Promise<TestApp> {
  const db = await freshDatabase();
  const served = await serveApp(db, options);
  return {
    ...served,
    db,
    close: async () => {
      await served.close();
      await db.drop();
    },
  };
}

/**
 * The service's app over an existing database, wired as app/service.ts wires it: one more process of
 * the service when that database already has one.
 */
export async function serveApp(
  database: { url: string; pool: Pool },
  options: AppOptions,
): Promise<ServedApp> {
  const checks = options.checks ?? true;
  const config: Config = loadConfig({
    LOG_LEVEL: checks ? 'trace' : 'silent',
    DATABASE_URL: database.url,
    // Tests play clients behind a proxy (X-Forwarded-For) so that per-address rate limits stay apart.
    TRUST_PROXY: 'true',
    ...options.env,
  });
  const secrets = registryOf(database.url);
  registerConfigSecrets(secrets, config);
  const stdout = { write: (line: string) => process.stdout.write(line) };
  const logTo = options.logTo ?? (options.env?.LOG_LEVEL ? stdout : undefined);
  const logger = checks
    ? createLogger(config.LOG_LEVEL, scanningLog(secrets, logTo))
    : createLogger(config.LOG_LEVEL, logTo);
  const store = new PostgresEventStore(database.pool, testRegistry);
  const clock = options.clock ?? (() => new Date());
  const work = options.workers?.length ? new Workers(database.pool, { clock, logger }) : undefined;
  const wake = wakeOnCommit(options.projections ?? [], () => work);
  const projections = new Projections(store, database.pool, options.projections ?? [], {
    onError: (error, context) => logger.error({ err: error, projection: context }, 'projection error'),
    onCommitted: (projection, applied) => {
      wake(projection, applied);
      options.onCommitted?.(projection, applied);
    },
  });
  await projections.start();
  const parts = makeServiceParts({ config, store, pool: database.pool });
  const deps: ServiceDeps = {
    config,
    store,
    pool: database.pool,
    projections,
    logger,
    clock,
    authenticate: options.authenticator?.({ pool: database.pool, parts }),
    ...(work ? { work } : {}),
    parts,
  };
  work?.start((options.workers ?? []).map((factory) => factory(deps)));
  const app = await buildApp(deps, options.routes ?? []);
  if (checks) checkAnswers(app, secrets);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    app,
    deps,
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
      await work?.stop();
      await projections.stop();
      await store.close();
    },
  };
}

/**
 * The whole-suite checks on every answer of a test app: against its OpenAPI document
 * (conformance.ts), and for the secrets known for its store (secret-scan.ts).
 */
export function checkAnswers(app: ZodApp, secrets: SecretRegistry): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const type = reply.getHeader('content-type');
    const body =
      typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString() : undefined;
    const route = request.routeOptions.url;
    const { method } = request;
    const status = reply.statusCode;
    const contentType = type === undefined ? undefined : String(type).split(';')[0]?.trim();
    const headers = reply.getHeaders();
    checkResponse(app, { method, url: request.url, route, status, contentType, body, headers });
    scanResponse(secrets, {
      method,
      route,
      status,
      headers: reply.getHeaders(),
      requestBody: request.body,
      body,
    });
    return payload;
  });
}
