import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { createPool } from '../../src/db/pool.ts';
import { PostgresEventStore } from '../../src/event-store/postgres.ts';
import { type AppDeps, buildApp, type RouteModule } from '../../src/http/app.ts';
import { createLogger } from '../../src/logger.ts';
import { Projections } from '../../src/projection/projections.ts';
import type { Projection } from '../../src/projection/types.ts';
import type { BenchServer } from './postgres.ts';

export interface BenchDeps {
  deps: AppDeps;
  /** Stops the projections, closes the store and the pool, drops the database. */
  close(): Promise<void>;
}

/**
 * The service's wiring for one benchmark, in this process: a fresh migrated database on the bench
 * server, the PostgreSQL event store, the given projections running, a quiet logger. `env` is the
 * configuration beyond DATABASE_URL.
 */
export async function openBenchDeps(
  server: BenchServer,
  name: string,
  projections: readonly Projection[],
  env: Record<string, string> = {},
): Promise<BenchDeps> {
  const database = await server.createDatabase(name, { migrate: true });
  const pool = createPool(database.url);
  const store = new PostgresEventStore(pool);
  const running = new Projections(store, pool, projections);
  await running.start();
  const config = loadConfig({ LOG_LEVEL: 'silent', ...env, DATABASE_URL: database.url });
  const deps: AppDeps = {
    config,
    store,
    pool,
    projections: running,
    logger: createLogger(config.LOG_LEVEL),
    clock: () => new Date(),
  };
  return {
    deps,
    async close() {
      await running.stop();
      await store.close();
      await pool.end();
      await database.drop();
    },
  };
}

/** Any Fastify app listening on a free loopback port; its base URL. */
export async function listenOnLoopback(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** The service's app with these routes, listening on loopback. */
export async function serveBenchApp(
  deps: AppDeps,
  routes: readonly RouteModule[],
): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildApp(deps, routes);
  return { app, url: await listenOnLoopback(app) };
}

export interface HttpLoad {
  rps: number;
  p50: number;
  p99: number;
}

/**
 * One closed-loop load of GETs by autocannon in a worker thread of this process; any failed request
 * (non-2xx, error, timeout) fails the benchmark rather than flattering it.
 */
export async function httpLoad(options: {
  url: string;
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
}): Promise<HttpLoad> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    workers: 1,
    headers: options.headers,
  });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) throw new Error(`${options.url}: ${failed} failed requests`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

export const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
