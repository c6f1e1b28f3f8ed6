/**
 * Webhooks benchmark (`npm run bench:webhooks`):
 *
 * 1. BENCH_MESSAGES (10,000) row.created messages to one subscription on a loopback receiver that
 *    answers 200 at once: the messages are enqueued first (the reactor, workers stopped), then the
 *    workers start and the time runs until the receiver has them all. Against a plain client POSTing
 *    the same signed payloads, at the same concurrency (the per-subscription limit, 4), with fetch.
 *    Target: >= 0.7x its rate.
 * 2. Event-to-delivery latency at 200 events/s: one-row inserts paced at 200 a second for
 *    BENCH_LATENCY_SECONDS, each message timed from its event's time (the row's createdAt, the
 *    service clock) to its receipt; p50 and p99.
 * Knobs: BENCH_MESSAGES, BENCH_ROUNDS, BENCH_WARMUP_MESSAGES (an untimed pass of each side first, 1,000),
 * BENCH_LATENCY_SECONDS; BENCH_PROFILE=<dir> writes a CPU profile of
 * each round's deliveries there. Where the PostgreSQL server preloads pg_stat_statements, each round
 * prints the service's statements per message.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { createAuthenticator } from '../src/auth/authenticator.ts';
import { Semaphore } from '../src/content-api/semaphore.ts';
import { HOLD_UP_TO } from '../src/domain/webhooks/attempt-log.ts';
import {
  CLAIMED_PER_SUBSCRIPTION,
  DELIVERY_KIND,
  type DeliveryPayload,
  PER_SUBSCRIPTION_CONCURRENCY,
} from '../src/domain/webhooks/messages.ts';
import { webhookHeaders } from '../src/domain/webhooks/signing.ts';
import { service } from '../src/modules.ts';
import { wakeOnCommit } from '../src/work/batch.ts';
import { Workers } from '../src/work/workers.ts';
import { bearer, bootstrapAccount, call } from '../test/support/accounts.ts';
import { createTable } from '../test/support/tables.ts';
import { subscribe } from '../test/support/webhooks.ts';
import { median, openBenchApp } from './lib/bench-app.ts';
import { cpuSnapshot, serverCpu, serverCpuSpent } from './lib/cpu.ts';
import { profilePhase } from './lib/cpu-profile.ts';
import { readStatements, statementsSpent } from './lib/pg-statements.ts';
import { startBenchServer } from './lib/postgres.ts';
import { describeMachine, markdownTable, textTable, writeBenchmarkSection } from './lib/report.ts';
import { numberFromEnv } from './lib/timing.ts';

const SECTION = 'Webhooks';
const settings = {
  messages: numberFromEnv('BENCH_MESSAGES', 10_000),
  rounds: numberFromEnv('BENCH_ROUNDS', 2),
  warmUp: numberFromEnv('BENCH_WARMUP_MESSAGES', 1000),
  latencySeconds: numberFromEnv('BENCH_LATENCY_SECONDS', 10),
  eventsPerSecond: 200,
  batch: 1000,
};
// From the CPU columns and profiles of this script's runs: what each side's rate is made of.
const WHAT_LIMITS_IT =
  "What limits each. The plain client is bound by the POSTs' round trips on loopback, 4 at a time, and its CPU is the HTTP alone (client and receiver share this process). The service sends the same 4 at a time from 128 of the subscription's messages claimed ahead (sticky claims: one process holds a subscription's messages, so its 4 send slots bound every process's POSTs), and its database work is per batch, not per message: an attempt that succeeded is held while more of its subscription's messages are being sent, up to 32 of them go into one WebhookAttemptsRecorded (one append, one read by the projections, one history batch of two statements), and their work items are settled in the transaction of the next sticky claim (migration 0023: one round trip and one commit for both). That is 0.4-0.55 statements a message where it was 1.4-1.6 (appends had left with 2-3 attempts, claims with about 6 messages), and 0.2-0.3 ms of PostgreSQL CPU a message where it was 0.45-0.6; the settle with its sticky claim is the largest statement left, about 0.1 ms a message. With 64 claimed ahead the send slots stood idle while the first 32 were recorded, settled and claimed again (12 % of a round at a load of 6.7; 2 % with 128). In this process the guarded HTTP client (undici, one timer and one abort controller per request, an IP literal's SSRF verdict remembered) costs about what fetch costs the plain client: 0.3-0.55 ms of CPU a message on either side, the receiver included. So neither the service's process nor its PostgreSQL is the slower part any more; on a shared machine the ratio still moves with the load, since the service needs two processes scheduled (itself and PostgreSQL) where the plain client needs one. An untimed pass of each side comes first: the first timed round used to pay the JIT, the connections and the statements' plans alone. Earlier designs: claim, POST, record and settle in series within each of the 4 slots, 0.11x-0.14x; group commits with a stream per attempt, 0.36x; one event per batch of the attempts that finished together, 0.59x on a quiet machine (1.1 ms of CPU a message in all).";
const BEHIND =
  "At 200 events/s the deliveries fall behind (they run at about 100 messages/s here), so the latency is the backlog's: the p50 and p99 say how far behind the last messages were, not the path of one message.";
const log = (line: string) => process.stderr.write(`${line}\n`);
const loadAtStart = loadavg()[0]!.toFixed(1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A receiver answering 200 at once, calling `onMessage` with each body as it arrives. */
async function startReceiver(onMessage: (body: string, at: number) => void) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      onMessage(Buffer.concat(chunks).toString('utf8'), Date.now());
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

/** Milliseconds of CPU a message: this process (service, receiver, client), and PostgreSQL's processes. */
const cpuPerMessage = (spent: { node: number; postgres?: number }, messages: number) =>
  ((spent.node * 1000) / messages).toFixed(2) +
  (spent.postgres === undefined ? '' : `; ${((spent.postgres * 1000) / messages).toFixed(2)}`);

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

const server = await startBenchServer();
let received = 0;
let onMessage: (body: string, at: number) => void = () => {
  received++;
};
const receiver = await startReceiver((body, at) => onMessage(body, at));
let workers: Workers | undefined;
try {
  const bench = await openBenchApp(server, 'webhooks', {
    projections: service.projections,
    routes: service.routes,
    authenticator: createAuthenticator,
    env: { LOG_LEVEL: 'warn', ALLOW_PRIVATE_NETWORK_TARGETS: 'true' },
    onCommitted: wakeOnCommit(service.projections, () => workers),
  });
  const { url, deps } = bench;
  const newWorkers = () =>
    new Workers(
      deps.pool,
      service.workers.map((w) => w(deps)),
      { clock: deps.clock, logger: deps.logger },
    );
  try {
    const { apiKey } = await bootstrapAccount(url);
    const tableId = await createTable(url, apiKey, 'Benchmark');
    const insert = async (rows: number) => {
      const res = await call(url, 'POST', `/api/tables/${tableId}/rows`, {
        headers: bearer(apiKey),
        body: { rows: Array.from({ length: rows }, () => ({ cells: {} })) },
      });
      if (res.status !== 201) throw new Error(`insert answered ${res.status}`);
    };
    // This process, and the benchmark's PostgreSQL server alone (the machine runs others).
    const cpuNow = async () => ({ node: cpuSnapshot().node, postgres: await serverCpu(deps.pool) });
    type Cpu = Awaited<ReturnType<typeof cpuNow>>;
    const cpuSpent = (before: Cpu, after: Cpu) => ({
      node: after.node - before.node,
      postgres: serverCpuSpent(before.postgres, after.postgres),
    });
    const settled = async () => {
      await deps.projections.waitFor(await deps.store.head(), undefined, 600_000);
      await server.checkpoint();
    };
    const pendingOf = async (subscriptionId: string) =>
      (
        await deps.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM work_items WHERE kind = $1 AND group_key = $2`,
          [DELIVERY_KIND, subscriptionId],
        )
      ).rows[0]!.n;

    // 1. Throughput, the service against a plain client, alternating rounds.
    const ours: number[] = [];
    const plain: number[] = [];
    const cpuOurs: string[] = [];
    const cpuPlain: string[] = [];
    // One pass of each side on `messages` new messages; a warm-up pass (round -1) is not recorded.
    const throughputRound = async (round: number, messages: number) => {
      const warmUp = round < 0;
      const name = warmUp ? 'warm-up' : String(round + 1);
      const sub = await subscribe(url, apiKey, { url: receiver.url, eventTypes: ['row.created'] });
      for (let done = 0; done < messages; done += settings.batch) {
        await insert(Math.min(settings.batch, messages - done));
      }
      while ((await pendingOf(sub.id)) < messages) await sleep(50);
      received = 0;
      // The read models done with the inserts, so that neither side's time pays for them.
      await settled();
      workers = newWorkers();
      let start = performance.now();
      let cpu = await cpuNow();
      const statements = await readStatements(deps.pool);
      const profile = await profilePhase(`webhooks-service-${name}`);
      workers.start();
      while (received < messages) await sleep(5);
      const oursRate = messages / ((performance.now() - start) / 1000);
      await profile.stop();
      const oursCpu = cpuPerMessage(cpuSpent(cpu, await cpuNow()), messages);
      // Where pg_stat_statements is loaded: the database's statements per message, most time first.
      const perStatement = statementsSpent(statements, await readStatements(deps.pool), messages);
      if (perStatement) log(`round ${name}, the service's statements per message:\n${perStatement}`);
      await workers.stop();
      workers = undefined;

      const { rows } = await deps.pool.query<{ payload: DeliveryPayload }>(
        `SELECT payload FROM work_items WHERE kind = $1 AND group_key = $2 ORDER BY id`,
        [DELIVERY_KIND, sub.id],
      );
      received = 0;
      // The history read model done with the service's attempts.
      await settled();
      start = performance.now();
      cpu = await cpuNow();
      let next = 0;
      await Promise.all(
        Array.from({ length: PER_SUBSCRIPTION_CONCURRENCY }, async () => {
          while (next < rows.length) {
            const { messageId, body } = rows[next++]!.payload;
            const headers = webhookHeaders([sub.secret], messageId, Math.floor(Date.now() / 1000), body);
            const res = await fetch(receiver.url, {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...headers },
              body,
            });
            await res.arrayBuffer();
          }
        }),
      );
      const plainRate = rows.length / ((performance.now() - start) / 1000);
      const plainCpu = cpuPerMessage(cpuSpent(cpu, await cpuNow()), rows.length);
      log(
        `round ${name}: service ${oursRate.toFixed(0)}/s (CPU ms/message ${oursCpu}), ` +
          `plain client ${plainRate.toFixed(0)}/s (${plainCpu})`,
      );
      if (!warmUp) {
        ours.push(oursRate);
        cpuOurs.push(oursCpu);
        plain.push(plainRate);
        cpuPlain.push(plainCpu);
      }
      await call(url, 'DELETE', `/api/webhooks/${sub.id}`, { headers: bearer(apiKey) });
    };
    // Untimed: the JIT, the connections and the statements' plans warmed up on both sides, which the
    // first timed round paid alone (its service side ran at a third to a half of the next rounds').
    if (settings.warmUp > 0) await throughputRound(-1, settings.warmUp);
    for (let round = 0; round < settings.rounds; round++) await throughputRound(round, settings.messages);

    // 2. Latency at 200 events/s, the workers running as in the service.
    workers = newWorkers();
    workers.start();
    const latencies: number[] = [];
    const sub = await subscribe(url, apiKey, { url: receiver.url, eventTypes: ['row.created'] });
    onMessage = (body, at) => {
      latencies.push(at - Date.parse(JSON.parse(body).data.createdAt));
    };
    const total = settings.latencySeconds * settings.eventsPerSecond;
    const paceStart = performance.now();
    const sent: Promise<void>[] = [];
    const inserting = new Semaphore(64);
    for (let i = 0; i < total; i++) {
      const due = paceStart + (i * 1000) / settings.eventsPerSecond;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      while (inserting.inUse >= 64) await sleep(1);
      // At most 64 inserts waiting: a machine that cannot keep the pace falls late (reported) rather
      // than piling up connections until they time out.
      sent.push(inserting.run(() => insert(1)));
    }
    await Promise.all(sent);
    const lateBy = (performance.now() - paceStart) / 1000 - settings.latencySeconds;
    while (latencies.length < total) await sleep(10);
    await workers.stop();
    workers = undefined;
    latencies.sort((a, b) => a - b);
    // Where the time goes: from the event to its work item (the reactor's commit), and on to the receipt.
    const { rows: enqueued } = await deps.pool.query<{ ms: number }>(
      `SELECT extract(epoch FROM created_at - (payload->>'eventAt')::timestamptz) * 1000 AS ms
       FROM work_items WHERE kind = $1 AND group_key = $2 ORDER BY 1`,
      [DELIVERY_KIND, sub.id],
    );
    const enqueueMs = enqueued.map((r) => Number(r.ms));
    log(
      `latency: event to work item p50 ${percentile(enqueueMs, 50).toFixed(0)} ms, p99 ${percentile(enqueueMs, 99).toFixed(0)} ms; ` +
        `event to receipt p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms`,
    );

    const rate = median(ours) / median(plain);
    const verdict = `${rate.toFixed(2)}x (target >= 0.7x: ${rate >= 0.7 ? 'met' : 'NOT met'})`;
    const headers = [
      'deliveries to one subscription',
      'messages/s (median)',
      'rounds',
      'CPU ms/message, per round (this process; its PostgreSQL server)',
    ];
    const table = [
      [
        'the service: reactor-enqueued, workers deliver',
        median(ours).toFixed(0),
        ours.map((r) => r.toFixed(0)).join(', '),
        cpuOurs.join(' / '),
      ],
      [
        `plain client: fetch, ${PER_SUBSCRIPTION_CONCURRENCY} at a time`,
        median(plain).toFixed(0),
        plain.map((r) => r.toFixed(0)).join(', '),
        cpuPlain.join(' / '),
      ],
    ];
    const latencyHeaders = ['event to delivery at 200 events/s', 'events', 'p50 ms', 'p99 ms'];
    const latencyRows = [
      [
        'one-row inserts, row.created to its receipt',
        String(total),
        String(percentile(latencies, 50)),
        String(percentile(latencies, 99)),
      ],
    ];
    console.log(
      [textTable(headers, table), `service / plain: ${verdict}`, textTable(latencyHeaders, latencyRows)].join(
        '\n\n',
      ),
    );
    await writeBenchmarkSection(
      SECTION,
      [
        `Measured ${new Date().toISOString().slice(0, 10)} on ${describeMachine()}, PostgreSQL ${server.version} (${server.origin}); 1-minute load average ${loadAtStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end.`,
        '',
        `**Throughput.** ${settings.messages.toLocaleString('en-US')} row.created messages to one subscription whose ` +
          'receiver (loopback, Node http) answers 200 at once. The messages are enqueued first (inserted rows, the ' +
          'reactor turning them into work items); the time runs from starting the workers until the receiver has ' +
          `them all: claims under leases, the subscription's ${PER_SUBSCRIPTION_CONCURRENCY} attempts at a time, ` +
          `signing, the attempts recorded as events (up to ${HOLD_UP_TO} an event), the items settled with the next claim (${CLAIMED_PER_SUBSCRIPTION} messages claimed ahead, ${PER_SUBSCRIPTION_CONCURRENCY} being sent). The plain client POSTs the same bodies, ` +
          `signed the same way, with fetch, ${PER_SUBSCRIPTION_CONCURRENCY} at a time, recording nothing. ` +
          `${settings.rounds} rounds, each pass on new messages, after an untimed pass of ${settings.warmUp.toLocaleString('en-US')} on each side.`,
        '',
        markdownTable(headers, table),
        '',
        `Service / plain client: **${verdict}**.`,
        '',
        WHAT_LIMITS_IT,
        '',
        `**Latency.** One-row inserts paced at ${settings.eventsPerSecond} a second for ${settings.latencySeconds} s ` +
          `(the pacing ended ${lateBy.toFixed(1)} s late), each message timed from its event's time (the row's ` +
          'createdAt) to its receipt: the append, the reactor enqueuing with its checkpoint, the workers woken by ' +
          'the commit, the attempt.',
        '',
        markdownTable(latencyHeaders, latencyRows),
        ...(percentile(latencies, 50) > 1000 ? ['', BEHIND] : []),
      ].join('\n'),
    );
  } finally {
    await workers?.stop();
    await bench.close();
  }
} finally {
  receiver.server.closeAllConnections();
  receiver.server.close();
  await server.stop();
}
