import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { service } from '../../app/modules.ts';
import { createAuthenticator } from '../../services/accounts/authenticator.ts';
import { bearer, call, type Target } from './accounts.ts';
import { caughtUp, startTestApp, type TestApp } from './app.ts';
import { eventually } from './eventually.ts';
import { createColumns } from './rows.ts';
import { createTable } from './tables.ts';

/**
 * A loopback HTTP target that counts requests per Idempotency-Key and answers each after `delayMs`
 * with `{ n, key }` (the `n` query parameter echoed), or what `answer` makes of them; `fail` names
 * values of `n` answered 500.
 * `hold()` keeps answers back until `release()`: a test then knows which rows are in flight.
 */
export interface CountingTarget {
  url: string;
  counts: Map<string, number>;
  inFlight(): number;
  /** The most requests it has had in flight at once. */
  maxInFlight(): number;
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startTarget(
  options: { delayMs?: number; fail?: Set<string>; answer?: (n: string, key: string) => unknown } = {},
): Promise<CountingTarget> {
  const counts = new Map<string, number>();
  let held: (() => void)[] | undefined;
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((req: IncomingMessage, res) => {
    const key = String(req.headers['idempotency-key'] ?? '');
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const n = new URL(req.url ?? '/', 'http://x').searchParams.get('n') ?? '';
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const answer = () => {
      inFlight--;
      const failed = options.fail?.has(n);
      res.writeHead(failed ? 500 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(failed ? { error: 'boom' } : (options.answer?.(n, key) ?? { n, key })));
    };
    const later = () => setTimeout(answer, options.delayMs ?? 0);
    if (held) held.push(later);
    else later();
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    hold: () => {
      held ??= [];
    },
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const go of waiting) go();
    },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * The whole service over a fresh database with its workers, allowed to call loopback targets (and
 * as fast as they answer: the per-host rate limit is not what these tests are about).
 */
export function startRunsApp(options: { clock?: () => Date } = {}): Promise<TestApp> {
  return startTestApp({
    clock: options.clock,
    projections: service.projections,
    routes: service.routes,
    authenticator: createAuthenticator,
    workers: service.workers,
    env: {
      ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
      OUTBOUND_RATE_PER_HOST: '100000',
      ...(process.env.STK_TEST_LOG_LEVEL ? { LOG_LEVEL: process.env.STK_TEST_LOG_LEVEL } : {}),
    },
  });
}

export const FINAL = ['succeeded', 'partially_succeeded', 'failed', 'stopped'];

/** Polls a run until it has ended; answers it. */
export async function runEnded(
  target: Target,
  apiKey: string,
  runId: string,
  timeoutMs = 60_000,
  pollMs = 10,
  // biome-ignore lint/suspicious/noExplicitAny: a run is arbitrary JSON that tests pick apart
): Promise<any> {
  return eventually(
    `run ${runId} to end`,
    async () => {
      const res = await call(target, 'GET', `/api/runs/${runId}`, { headers: bearer(apiKey) });
      return res.status === 200 && FINAL.includes(res.body.status) ? res.body : undefined;
    },
    timeoutMs,
    pollMs,
  );
}

/**
 * A run ended, read once every projection caught up: the run's end comes from the runs read model,
 * its cells from the rows one, which follows the log on its own.
 */
// biome-ignore lint/suspicious/noExplicitAny: a run is arbitrary JSON that tests pick apart
export async function runSettled(t: TestApp, apiKey: string, runId: string): Promise<any> {
  const run = await runEnded(t.app, apiKey, runId);
  await caughtUp(t);
  return run;
}

/**
 * A table with an input column `n` and a json column `result` that GETs `<targetUrl>/r?n={{n}}` per
 * row (http_request, `concurrency` rows at once).
 */
export async function httpColumnTable(
  target: Target,
  apiKey: string,
  targetUrl: string,
  concurrency?: number,
  // biome-ignore lint/suspicious/noExplicitAny: columns are arbitrary JSON that tests pick apart
): Promise<{ tableId: string; columns: Record<string, any> }> {
  const tableId = await createTable(target, apiKey);
  const columns = await createColumns(target, apiKey, tableId, {
    n: 'text',
    result: {
      dataType: 'json',
      kind: 'enrichment',
      config: {
        provider: 'http_request',
        method: 'GET',
        url: `${targetUrl}/r?n={{n}}`,
        ...(concurrency ? { concurrency } : {}),
      },
    },
  });
  return { tableId, columns };
}
