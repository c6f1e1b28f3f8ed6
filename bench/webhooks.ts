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
 * BENCH_LATENCY_SECONDS; BENCH_SMOKE=1 runs it on tiny sizes (bench/lib/smoke.ts); BENCH_PROFILE=<dir>
 * writes a CPU profile of each round's deliveries there. Where the PostgreSQL server preloads
 * pg_stat_statements, each round prints the service's statements per message.
 */
import { loadavg } from 'node:os';
import { service } from '../app/modules.ts';
import { createAuthenticator } from '../services/accounts/authenticator.ts';
import { Semaphore } from '../src/content-api/semaphore.ts';
import { wakeOnCommit } from '../src/work/batch.ts';
import { Workers } from '../src/work/workers.ts';
import { bearer, bootstrapAccount, call } from '../test/support/accounts.ts';
import { createTable } from '../test/support/tables.ts';
import { subscribe } from '../test/support/webhooks.ts';
import { openBenchApp } from './lib/bench-app.ts';
import { processAndServerCpu, processAndServerSpent } from './lib/cpu.ts';
import { profilePhase } from './lib/cpu-profile.ts';
import { enqueueDelays, pendingDeliveries, queuedPayloads } from './lib/delivery-queue.ts';
import { readStatements, statementsSpent } from './lib/pg-statements.ts';
import { startBenchServer } from './lib/postgres.ts';
import { writeBenchmarkSection } from './lib/report.ts';
import { numberFromEnv, percentile } from './lib/timing.ts';
import { postLikeAPlainClient } from './lib/webhook-plain-client.ts';
import { startReceiver } from './lib/webhook-receiver.ts';
import { cpuPerMessage, webhooksMarkdown, webhooksText } from './lib/webhooks-report.ts';

const SECTION = 'Webhooks';
const settings = {
  messages: numberFromEnv('BENCH_MESSAGES', 10_000, 20),
  rounds: numberFromEnv('BENCH_ROUNDS', 2, 1),
  warmUp: numberFromEnv('BENCH_WARMUP_MESSAGES', 1000, 5),
  latencySeconds: numberFromEnv('BENCH_LATENCY_SECONDS', 10, 0.1),
  eventsPerSecond: 200,
  batch: 1000,
};
const log = (line: string) => process.stderr.write(`${line}\n`);
const loadAtStart = loadavg()[0]!.toFixed(1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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
  const newWorkers = () => new Workers(deps.pool, { clock: deps.clock, logger: deps.logger });
  const specs = () => service.workers.map((w) => w(deps));
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
    const cpuNow = () => processAndServerCpu(deps.pool);
    const settled = async () => {
      await deps.projections.waitFor(await deps.store.head(), undefined, 600_000);
      await server.checkpoint();
    };

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
      while ((await pendingDeliveries(deps.pool, sub.id)) < messages) await sleep(50);
      received = 0;
      // The read models done with the inserts, so that neither side's time pays for them.
      await settled();
      workers = newWorkers();
      let start = performance.now();
      let cpu = await cpuNow();
      const statements = await readStatements(deps.pool);
      const profile = await profilePhase(`webhooks-service-${name}`);
      workers.start(specs());
      while (received < messages) await sleep(5);
      const oursRate = messages / ((performance.now() - start) / 1000);
      await profile.stop();
      const oursCpu = cpuPerMessage(processAndServerSpent(cpu, await cpuNow()), messages);
      // Where pg_stat_statements is loaded: the database's statements per message, most time first.
      const perStatement = statementsSpent(statements, await readStatements(deps.pool), messages);
      if (perStatement) log(`round ${name}, the service's statements per message:\n${perStatement}`);
      await workers.stop();
      workers = undefined;

      const payloads = await queuedPayloads(deps.pool, sub.id);
      received = 0;
      // The history read model done with the service's attempts.
      await settled();
      start = performance.now();
      cpu = await cpuNow();
      await postLikeAPlainClient(receiver.url, sub.secret, payloads);
      const plainRate = payloads.length / ((performance.now() - start) / 1000);
      const plainCpu = cpuPerMessage(processAndServerSpent(cpu, await cpuNow()), payloads.length);
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
    workers.start(specs());
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
    const enqueueMs = await enqueueDelays(deps.pool, sub.id);
    log(
      `latency: event to work item p50 ${percentile(enqueueMs, 50).toFixed(0)} ms, p99 ${percentile(enqueueMs, 99).toFixed(0)} ms; ` +
        `event to receipt p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms`,
    );

    const results = { settings, ours, plain, cpuOurs, cpuPlain, events: total, latencies, lateBy };
    console.log(webhooksText(results));
    await writeBenchmarkSection(SECTION, webhooksMarkdown(results, server, loadAtStart));
  } finally {
    await workers?.stop();
    await bench.close();
  }
} finally {
  receiver.server.closeAllConnections();
  receiver.server.close();
  await server.stop();
}
