/**
 * Authentication benchmark (`npm run bench:auth`): GET /api/me with real API-key authentication
 * against the very same route with authentication switched off (an authenticator that hands back the
 * principal without looking at the key), all in this process on loopback. A third variant reads the
 * api_keys row on every request (no cache of verified keys), to show what the cache buys.
 *
 * Variants run back to back within a round, in rotating order, and each round yields a ratio to the
 * "off" run of the same round: adjacent runs share whatever else the machine is doing, so the median
 * of those ratios is steadier than a ratio of totals. autocannon runs in a worker thread, so the load
 * generator does not share the app's event loop. Target: authenticated >= 0.85x of unauthenticated.
 * Knobs: BENCH_SECONDS (per run), BENCH_ROUNDS, BENCH_CONNECTIONS; BENCH_SMOKE=1 runs it on tiny sizes
 * (bench/lib/smoke.ts).
 */
import { loadavg } from 'node:os';
import { createAuthenticator } from '../services/accounts/authenticator.ts';
import { parseKey } from '../src/auth/keys.ts';
import type { Authenticator, Principal } from '../src/auth/scopes.ts';
import { accounts, bootstrapAccount } from '../test/support/accounts.ts';
import { type HttpLoad, httpLoad, median, openBenchApp, serveBenchApp } from './lib/bench-app.ts';
import { startBenchServer } from './lib/postgres.ts';
import { describeMachine, markdownTable, textTable, verdict, writeBenchmarkSection } from './lib/report.ts';
import { sized } from './lib/smoke.ts';
import { numberFromEnv } from './lib/timing.ts';

const SECTION = 'Auth';
const TARGET = 0.85;

const settings = {
  seconds: numberFromEnv('BENCH_SECONDS', 2, 0.3),
  rounds: numberFromEnv('BENCH_ROUNDS', 11, 1),
  connections: numberFromEnv('BENCH_CONNECTIONS', 50, 4),
  warmupSeconds: sized(2, 0.2),
};

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Variant {
  name: string;
  url: string;
  runs: HttpLoad[];
}

const load = (url: string, apiKey: string, seconds: number) =>
  httpLoad({
    url: `${url}/api/me`,
    connections: settings.connections,
    seconds,
    headers: { authorization: `Bearer ${apiKey}` },
  });

const server = await startBenchServer();
try {
  const bench = await openBenchApp(server, 'auth', { ...accounts, authenticator: createAuthenticator });
  const { pool } = bench.deps;
  const apps: { close(): Promise<unknown> }[] = [];
  // The other variants: the same wiring and projections, another authenticator.
  const serve = async (authenticate: Authenticator) => {
    const { app, url } = await serveBenchApp({ ...bench.deps, authenticate }, accounts.routes);
    apps.push(app);
    return url;
  };

  const onUrl = bench.url;
  const account = await bootstrapAccount(onUrl);
  const principal: Principal = {
    keyId: parseKey(account.apiKey)!.keyId,
    organizationId: account.organizationId,
    userId: account.userId,
    scopes: new Set(account.body.keyMetadata.scopes),
  };
  const variants: Variant[] = [
    { name: 'authentication on', url: onUrl, runs: [] },
    {
      name: 'authentication on, no key cache',
      url: await serve(createAuthenticator({ pool, parts: bench.deps.parts }, { cache: false })),
      runs: [],
    },
    // Off: the same access hook and route, but the key is not looked at.
    { name: 'authentication off', url: await serve(async () => principal), runs: [] },
  ];
  const off = variants[2]!;

  // The cache of verified keys serves only once its revocation listener is connected.
  for (let i = 0; i < 500 && !bench.deps.parts.auth.cache.active; i++)
    await new Promise((r) => setTimeout(r, 10));
  if (!bench.deps.parts.auth.cache.active) throw new Error('the key cache did not become active');

  const loadBefore = loadavg()[0]!;
  for (const v of variants) await load(v.url, account.apiKey, settings.warmupSeconds);
  for (let round = 0; round < settings.rounds; round++) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
    for (const v of order) {
      const run = await load(v.url, account.apiKey, settings.seconds);
      v.runs.push(run);
      log(`round ${round + 1} ${v.name}: ${Math.round(run.rps)} req/s, p99 ${run.p99} ms`);
    }
  }
  const loadAfter = loadavg()[0]!;

  const ratios = (v: Variant) => v.runs.map((run, i) => run.rps / off.runs[i]!.rps);
  const headers = ['GET /api/me', 'req/s (median)', 'p50 ms', 'p99 ms', 'vs off (median of rounds)'];
  const rows = variants.map((v) => [
    v.name,
    String(Math.round(median(v.runs.map((r) => r.rps)))),
    String(median(v.runs.map((r) => r.p50))),
    String(median(v.runs.map((r) => r.p99))),
    `${median(ratios(v)).toFixed(2)}x`,
  ]);
  const ratio = median(ratios(variants[0]!));
  const perRound = ratios(variants[0]!)
    .map((r) => r.toFixed(2))
    .join(', ');
  const verdictText = verdict(ratio, TARGET);
  console.log(
    `${textTable(headers, rows)}\n\nauthenticated / unauthenticated: ${verdictText}; rounds: ${perRound}`,
  );

  await writeBenchmarkSection(
    SECTION,
    [
      `Measured ${new Date().toISOString().slice(0, 10)} on ${describeMachine()}, PostgreSQL ${server.version} ` +
        `(${server.origin}); 1-minute load average ${loadBefore.toFixed(1)} before and ${loadAfter.toFixed(1)} after.`,
      '',
      `GET /api/me in one process on loopback, ${settings.connections} connections (autocannon in a worker ` +
        `thread), ${settings.rounds} rounds of ${settings.seconds} s per variant in rotating order, after a ` +
        `${settings.warmupSeconds} s warm-up each. "Off" runs the same access hook and handler with an ` +
        'authenticator that returns the principal without reading the key. "On" parses the key, takes the ' +
        "key's row from the in-process cache of verified keys (invalidated on revocation, see " +
        'src/auth/key-cache.ts) and compares the SHA-256 of the secret in constant time; "no key cache" ' +
        'reads the api_keys row on every request.',
      '',
      markdownTable(headers, rows),
      '',
      `Authenticated / unauthenticated, median of the per-round ratios: **${verdictText}**; per round: ${perRound}.`,
      '',
      'On a busy machine (see the load average) absolute rates and single rounds swing widely; the median ' +
        'ratio of adjacent runs is the figure to read.',
    ].join('\n'),
  );

  for (const app of apps) await app.close();
  await bench.close();
} finally {
  await server.stop();
}
