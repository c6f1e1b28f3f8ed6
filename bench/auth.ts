/**
 * Authentication benchmark (`npm run bench:auth`): GET /api/me with real API-key authentication
 * against the very same route with authentication switched off (an authenticator that hands back the
 * principal without looking at the key), both in this process on loopback, one after the other in
 * alternating rounds so that drift hits both alike. autocannon runs in a worker thread, so the load
 * generator does not share the app's event loop. Target: authenticated >= 0.85x of unauthenticated.
 * Knobs: BENCH_SECONDS (per round), BENCH_ROUNDS, BENCH_CONNECTIONS.
 */
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { createAuthenticator } from '../src/auth/authenticator.ts';
import { parseKey } from '../src/auth/keys.ts';
import type { Authenticator, Principal } from '../src/auth/scopes.ts';
import { loadConfig } from '../src/config.ts';
import { createPool } from '../src/db/pool.ts';
import { PostgresEventStore } from '../src/event-store/postgres.ts';
import { buildApp, type ZodApp } from '../src/http/app.ts';
import { createLogger } from '../src/logger.ts';
import { Projections } from '../src/projection/projections.ts';
import { accounts, bootstrapAccount } from '../test/support/accounts.ts';
import { startBenchServer } from './lib/postgres.ts';
import { describeMachine, markdownTable, textTable, writeBenchmarkSection } from './lib/report.ts';

const SECTION = 'Auth';
const TARGET = 0.85;

function numberFromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const settings = {
  seconds: numberFromEnv('BENCH_SECONDS', 5),
  rounds: numberFromEnv('BENCH_ROUNDS', 3),
  connections: numberFromEnv('BENCH_CONNECTIONS', 50),
  warmupSeconds: 2,
};

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Round {
  requestsPerSec: number;
  p50: number;
  p99: number;
  non2xx: number;
}

async function load(url: string, apiKey: string, seconds: number): Promise<Round> {
  const result = await autocannon({
    url: `${url}/api/me`,
    connections: settings.connections,
    duration: seconds,
    workers: 1,
    headers: { authorization: `Bearer ${apiKey}` },
  });
  return {
    requestsPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors + result.timeouts,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function listen(app: ZodApp): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

const server = await startBenchServer();
try {
  const database = await server.createDatabase('auth', { migrate: true });
  const pool = createPool(database.url);
  const store = new PostgresEventStore(pool);
  const projections = new Projections(store, pool, accounts.projections);
  await projections.start();
  const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' });
  const base = { config, store, pool, projections, logger: createLogger('silent'), clock: () => new Date() };

  const withAuth = await buildApp({ ...base, authenticate: createAuthenticator(pool) }, accounts.routes);
  const withAuthUrl = await listen(withAuth);
  const account = await bootstrapAccount(withAuthUrl);
  const principal: Principal = {
    keyId: parseKey(account.apiKey)!.keyId,
    organizationId: account.organizationId,
    userId: account.userId,
    scopes: new Set(account.body.keyMetadata.scopes),
  };
  // Authentication off: the same hook and route, but the key is not looked at.
  const noAuth: Authenticator = async () => principal;
  const withoutAuth = await buildApp({ ...base, authenticate: noAuth }, accounts.routes);
  const withoutAuthUrl = await listen(withoutAuth);

  const variants = [
    { name: 'authentication on', url: withAuthUrl, rounds: [] as Round[] },
    { name: 'authentication off', url: withoutAuthUrl, rounds: [] as Round[] },
  ];
  for (const v of variants) await load(v.url, account.apiKey, settings.warmupSeconds);
  for (let round = 0; round < settings.rounds; round++) {
    for (const v of round % 2 ? [...variants].reverse() : variants) {
      const result = await load(v.url, account.apiKey, settings.seconds);
      if (result.non2xx > 0) throw new Error(`${v.name}: ${result.non2xx} failed requests`);
      v.rounds.push(result);
      log(`round ${round + 1} ${v.name}: ${Math.round(result.requestsPerSec)} req/s, p99 ${result.p99} ms`);
    }
  }
  const summary = variants.map((v) => ({
    name: v.name,
    rps: median(v.rounds.map((r) => r.requestsPerSec)),
    p50: median(v.rounds.map((r) => r.p50)),
    p99: median(v.rounds.map((r) => r.p99)),
  }));
  const ratio = summary[0]!.rps / summary[1]!.rps;
  const headers = ['GET /api/me', 'req/s (median)', 'p50 ms', 'p99 ms'];
  const rows = summary.map((s) => [s.name, String(Math.round(s.rps)), String(s.p50), String(s.p99)]);
  const verdict = `${ratio.toFixed(2)}x (target >= ${TARGET}x: ${ratio >= TARGET ? 'met' : 'NOT met'})`;
  console.log(`${textTable(headers, rows)}\n\nauthenticated / unauthenticated: ${verdict}`);

  await writeBenchmarkSection(
    SECTION,
    [
      `Measured ${new Date().toISOString().slice(0, 10)} on ${describeMachine()}, PostgreSQL ${server.version} (${server.origin}).`,
      '',
      `GET /api/me in this process on loopback, ${settings.connections} connections (autocannon in a worker thread), ` +
        `${settings.rounds} alternating rounds of ${settings.seconds} s after a ${settings.warmupSeconds} s warm-up each; medians. ` +
        '"Off" runs the same access hook and handler with an authenticator that returns the principal ' +
        'without reading the key; "on" parses the key, reads its api_keys row, and compares the SHA-256 of ' +
        'the secret in constant time.',
      '',
      markdownTable(headers, rows),
      '',
      `Authenticated / unauthenticated throughput: **${verdict}**.`,
    ].join('\n'),
  );

  await withAuth.close();
  await withoutAuth.close();
  await projections.stop();
  await store.close();
  await pool.end();
  await database.drop();
} finally {
  await server.stop();
}
