import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAuthenticator } from '../../src/auth/authenticator.ts';
import type { Executor } from '../../src/domain/runs/executor.ts';
import { runFinishWorker } from '../../src/domain/runs/finish-worker.ts';
import { runRowWorker } from '../../src/domain/runs/row-worker.ts';
import { service } from '../../src/modules.ts';
import { bearer, call, type Target } from './accounts.ts';
import { startTestApp, type TestApp } from './app.ts';
import { eventually } from './eventually.ts';

/**
 * A loopback HTTP target that counts requests per Idempotency-Key and answers each after `delayMs`
 * with `{ n, key }` (the `n` query parameter echoed); `fail` names values of `n` answered 500.
 * `hold()` keeps answers back until `release()`: a test then knows which rows are in flight.
 */
export interface CountingTarget {
  url: string;
  counts: Map<string, number>;
  inFlight(): number;
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startTarget(
  options: { delayMs?: number; fail?: Set<string> } = {},
): Promise<CountingTarget> {
  const counts = new Map<string, number>();
  let held: (() => void)[] | undefined;
  let inFlight = 0;
  const server: Server = createServer((req: IncomingMessage, res) => {
    const key = String(req.headers['idempotency-key'] ?? '');
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const n = new URL(req.url ?? '/', 'http://x').searchParams.get('n') ?? '';
    inFlight++;
    const answer = () => {
      inFlight--;
      const failed = options.fail?.has(n);
      res.writeHead(failed ? 500 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(failed ? { error: 'boom' } : { n, key }));
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
 * The tests' own executor, until the providers land: GET `config.url` with `{{key}}` placeholders
 * filled (URL-encoded) from the row, the row's Idempotency-Key sent; a 2xx answers its JSON body.
 */
export const testExecutor: Executor = async (ctx) => {
  const started = Date.now();
  const url = String(ctx.column.config.url).replace(/\{\{(\w+)\}\}/g, (_m, key: string) =>
    encodeURIComponent(String(ctx.row.cells[key] ?? '')),
  );
  try {
    const res = await fetch(url, { headers: { 'idempotency-key': ctx.idempotencyKey }, signal: ctx.signal });
    const body = await res.json();
    const meta = { httpStatus: res.status, durationMs: Date.now() - started, attempts: 1 };
    return res.ok
      ? { ok: true, value: body, meta }
      : { ok: false, error: { code: 'http_error', message: `status ${res.status}` }, meta };
  } catch (error) {
    return {
      ok: false,
      error: { code: 'connection_failed', message: String(error) },
      meta: { durationMs: Date.now() - started, attempts: 1 },
    };
  }
};

/** The whole service over a fresh database, its run workers using `executor`. */
export function startRunsApp(executor: Executor = testExecutor): Promise<TestApp> {
  return startTestApp({
    projections: service.projections,
    routes: service.routes,
    authenticator: createAuthenticator,
    workers: [runRowWorker(() => executor), runFinishWorker],
    env: process.env.STK_TEST_LOG_LEVEL ? { LOG_LEVEL: process.env.STK_TEST_LOG_LEVEL } : {},
  });
}

export const FINAL = ['succeeded', 'partially_succeeded', 'failed', 'stopped'];

/** Polls a run until it has ended; answers it. */
export async function runEnded(
  target: Target,
  apiKey: string,
  runId: string,
  timeoutMs = 60_000,
  // biome-ignore lint/suspicious/noExplicitAny: a run is arbitrary JSON that tests pick apart
): Promise<any> {
  return eventually(
    `run ${runId} to end`,
    async () => {
      const res = await call(target, 'GET', `/api/runs/${runId}`, { headers: bearer(apiKey) });
      return res.status === 200 && FINAL.includes(res.body.status) ? res.body : undefined;
    },
    timeoutMs,
  );
}
