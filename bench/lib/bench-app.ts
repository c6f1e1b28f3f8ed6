import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import type { FastifyInstance } from 'fastify';
import { createPool } from '../../src/db/pool.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { buildApp } from '../../src/http/app.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { type AppOptions, type ServedApp, serveApp } from '../../test/support/app.ts';
import type { BenchServer } from './postgres.ts';
import { sized } from './smoke.ts';

export interface BenchApp extends ServedApp {
  /** Closes the app, its projections and store, the pool, and drops the database. */
  close(): Promise<void>;
}

/**
 * The service's app for one benchmark, in this process and wired as the tests wire it
 * (test/support/app.ts): a fresh migrated database on the bench server, listening on loopback.
 */
export async function openBenchApp(
  server: BenchServer,
  name: string,
  options: AppOptions,
): Promise<BenchApp> {
  const database = await server.createDatabase(name, { migrate: true });
  const pool = createPool(database.url);
  // Without the test suite's response checks and trace-level secret scan: the service alone is measured.
  const served = await serveApp({ url: database.url, pool }, { checks: false, ...options });
  return {
    ...served,
    async close() {
      await served.close();
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

/** Another app over the same wiring (another authenticator, say), listening on loopback. */
export async function serveBenchApp(
  deps: ServiceDeps,
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
  // autocannon samples once a second, so a load lasts a whole second at least; a smoke run samples
  // every 100 ms (its sub-second loads end on time) and scales the rate back to a second.
  const sampleMs = sized(1000, 100);
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.seconds,
    workers: 1,
    headers: options.headers,
    sampleInt: sampleMs,
  });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0) throw new Error(`${options.url}: ${failed} failed requests`);
  const rps = (result.requests.average * 1000) / sampleMs;
  return { rps, p50: result.latency.p50, p99: result.latency.p99 };
}

export const median = (values: readonly number[]): number =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
