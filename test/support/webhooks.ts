import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../app/modules.ts';
import { createAuthenticator } from '../../services/accounts/authenticator.ts';
import { wakeOnCommit } from '../../src/work/batch.ts';
import { Workers } from '../../src/work/workers.ts';
import { type BootstrappedAccount, bearer, bootstrapAccount, call, type Target } from './accounts.ts';
import { startTestApp, type TestApp } from './app.ts';
import { eventually } from './eventually.ts';

/** One request a receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver answers: a status, and headers. */
export type Answerer = (request: Received) => {
  status: number;
  headers?: Record<string, string>;
  body?: string;
};

/**
 * A webhook receiver on loopback: a plain HTTP server that records every request and answers as its
 * `answer` says (200 by default).
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: Answerer = () => ({ status: 200 });
  /** How long the receiver takes to answer. */
  delayMs = 0;
  /** Called once an answer has been sent. */
  onAnswered?: (request: Received) => void;
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(path = '/hook'): Promise<Receiver> {
    let self: Receiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const request = {
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        self!.received.push(request);
        const { status, headers, body } = self!.answer(request);
        const send = () => {
          res.writeHead(status, headers).end(body ?? '');
          self!.onAnswered?.(request);
        };
        if (self!.delayMs > 0) setTimeout(send, self!.delayMs);
        else send();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new Receiver(server, `http://127.0.0.1:${port}${path}`);
    return self;
  }

  /** The messages of a type received so far, parsed. */
  // biome-ignore lint/suspicious/noExplicitAny: payloads are arbitrary JSON that tests pick apart
  ofType(type: string): { headers: IncomingHttpHeaders; payload: any }[] {
    return this.received
      .map((r) => ({ headers: r.headers, payload: JSON.parse(r.body) }))
      .filter((m) => m.payload.type === type);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export interface WebhooksContext {
  t: TestApp;
  account: BootstrappedAccount;
  other: BootstrappedAccount;
  key: string;
  receiver: Receiver;
  /** Moves the service's clock (the worker's due times, the disable rules) forward. */
  advance(ms: number): void;
  dataDir: string;
  workers: Workers;
  lines: string[];
}

/**
 * The whole service with its workers, the retry schedule of the tests (0,1,2 seconds), a clock the
 * tests move, two accounts of separate organizations and a receiver that answers 200 unless told.
 */
export function webhooksSuite(name: string, env: Record<string, string> = {}): Test<WebhooksContext> {
  const test = suite<WebhooksContext>(name);
  test.before(async (ctx) => {
    let offset = 0;
    ctx.advance = (ms) => {
      offset += ms;
    };
    ctx.lines = [];
    ctx.dataDir = await mkdtemp(join(tmpdir(), 'stk-webhooks-'));
    ctx.t = await startTestApp({
      projections: service.projections,
      routes: service.routes,
      authenticator: createAuthenticator,
      clock: () => new Date(Date.now() + offset),
      env: {
        LOG_LEVEL: 'debug',
        WEBHOOK_RETRY_SCHEDULE: '0,1,2',
        // The receiver is on loopback, which the SSRF guard refuses unless told.
        ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
        SECRETS_MASTER_KEY: randomBytes(32).toString('base64'),
        DATA_DIR: ctx.dataDir,
        ...env,
      },
      logTo: { write: (line: string) => void ctx.lines.push(line) },
      onCommitted: wakeOnCommit(service.projections, () => ctx.workers),
    });
    const deps = ctx.t.deps;
    ctx.workers = new Workers(deps.pool, { clock: deps.clock, logger: deps.logger });
    deps.work = ctx.workers;
    ctx.workers.start(service.workers.map((w) => ({ ...w(deps), pollMs: 20 })));
    ctx.account = await bootstrapAccount(ctx.t.app);
    ctx.other = await bootstrapAccount(ctx.t.app);
    ctx.key = ctx.account.apiKey;
  });
  test.before.each(async (ctx) => {
    ctx.receiver = await Receiver.start();
  });
  test.after.each(async (ctx) => {
    await ctx.receiver.close();
  });
  test.after(async (ctx) => {
    await ctx.workers.stop();
    await ctx.t.close();
    await rm(ctx.dataDir, { recursive: true, force: true });
  });
  return test;
}

/** Subscribes and returns the answer's body (throws on anything but 201). */
export async function subscribe(
  target: Target,
  apiKey: string,
  body: { url: string; eventTypes: string[]; description?: string; enabled?: boolean },
  // biome-ignore lint/suspicious/noExplicitAny: a subscription is arbitrary JSON that tests pick apart
): Promise<any> {
  const res = await call(target, 'POST', '/api/webhooks', { headers: bearer(apiKey), body });
  if (res.status !== 201) throw new Error(`subscribing failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The delivery history of a subscription (first page). */
// biome-ignore lint/suspicious/noExplicitAny: deliveries are arbitrary JSON that tests pick apart
export async function deliveries(target: Target, apiKey: string, id: string, query = ''): Promise<any[]> {
  const res = await call(target, 'GET', `/api/webhooks/${id}/deliveries${query}`, {
    headers: bearer(apiKey),
  });
  if (res.status !== 200) throw new Error(`deliveries: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Replays a subscription's messages since `since` and waits until the receiver has every one of `messages`. */
export async function replayUntilReceived(
  target: Target,
  apiKey: string,
  id: string,
  since: string,
  receiver: Receiver,
  messages: readonly { id: string }[],
): Promise<void> {
  const replay = await call(target, 'POST', `/api/webhooks/${id}/replay`, {
    headers: bearer(apiKey),
    body: { since, until: new Date(Date.now() + 60_000).toISOString() },
  });
  assert.is(replay.status, 202);
  await eventually(
    'every skipped message sent',
    () => {
      const ids = new Set(receiver.received.map((r) => String(r.headers['webhook-id'])));
      return messages.every((m) => ids.has(m.id));
    },
    60_000,
  );
}
