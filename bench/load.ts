/**
 * Load benchmark (`npm run bench:load`): one service process (`app/main.ts`, as deployed) on a fresh
 * database, BENCH_CONNECTIONS (64) connections for BENCH_SECONDS (60 s) of a mixed workload, split in
 * groups so that each route has its own latencies (autocannon, one instance per group, in this process):
 * column and row reads, blog pages, column PATCHes, row inserts (each a row.created message to a
 * loopback webhook receiver), named content syncs against the fake content API. Beside it, column runs
 * one after another against a loopback target, and midway `stk admin projections rebuild rows` in its
 * own process. Reported: per route requests, p50/p99 and every status other than 2xx (429s apart, as
 * intended answers), the service's RSS sampled each second, the runs and deliveries done, the rebuild's
 * time, and how long after the load the projections' lag (GET /metrics) was back to zero. Nothing is
 * asserted: the numbers go into the "Load" section of docs/benchmarks.md. BENCH_SMOKE=1 runs it on
 * tiny sizes (bench/lib/smoke.ts).
 */
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { bearer, call } from '../test/support/accounts.ts';
import { spawnAdmin } from '../test/support/cli.ts';
import { generatedArticle } from '../test/support/content-samples.ts';
import { startFakeContentApi } from '../test/support/fake-content-api.ts';
import { runEnded, startTarget } from '../test/support/runs.ts';
import { startServiceProcess } from '../test/support/service-process.ts';
import { Receiver } from '../test/support/webhooks.ts';
import { insertedRows, mostFrequentEventTypes } from './lib/event-log-counts.ts';
import { type LoadObservations, loadFacts, loadMarkdown } from './lib/load-report.ts';
import { ROUTE_HEADERS, routeMix, routeRow } from './lib/load-routes.ts';
import { CRON_SECRET, setUpLoad } from './lib/load-setup.ts';
import { startBenchServer } from './lib/postgres.ts';
import { textTable, writeBenchmarkSection } from './lib/report.ts';
import { type MetricsSample, rssMiB, scrape, untilCaughtUp } from './lib/service-metrics.ts';
import { sized } from './lib/smoke.ts';
import { numberFromEnv } from './lib/timing.ts';

const settings = {
  connections: numberFromEnv('BENCH_CONNECTIONS', 64, 8),
  seconds: numberFromEnv('BENCH_SECONDS', 60, 1),
  articles: sized(50, 5),
  rows: sized(1000, 20),
  runRows: sized(200, 5),
};
const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loadAtStart = loadavg()[0]!.toFixed(1);
const CONTENT_KEY = 'bench-content-key';

const server = await startBenchServer();
const fake = await startFakeContentApi({ apiKey: CONTENT_KEY });
fake.setArticles(Array.from({ length: settings.articles }, (_, i) => generatedArticle(i, 8_000)));
const target = await startTarget({ delayMs: 5 });
const receiver = await Receiver.start();
const database = await server.createDatabase('load');
const service = await startServiceProcess(
  {
    DATABASE_URL: database.url,
    LOG_LEVEL: 'warn',
    CONTENT_API_URL: fake.url,
    CONTENT_API_KEY: CONTENT_KEY,
    CRON_SECRET,
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    OUTBOUND_RATE_PER_HOST: '100000',
    // Named syncs are limited per client address, and every group comes from one: raised, so that the
    // bench measures the work, not the limiter (a 429 is still counted apart, as intended).
    SYNC_RATE_LIMIT: '1000000',
  },
  120_000,
);
try {
  const { url } = service;
  const fixture = await setUpLoad({
    url,
    databaseUrl: database.url,
    targetUrl: target.url,
    receiverUrl: receiver.url,
    rows: settings.rows,
    runRows: settings.runRows,
    articles: settings.articles,
    log,
  });
  const { key, tableId, run } = fixture;
  const groups = routeMix(settings.connections, fixture);

  const rss: number[] = [];
  const scrapes: MetricsSample[] = [];
  let underLoad = true;
  const sampler = setInterval(() => {
    const mib = rssMiB(service.child.pid!);
    if (mib !== undefined) rss.push(mib);
    if (underLoad)
      scrape(url).then(
        (s) => scrapes.push(s),
        () => {},
      );
  }, 1000);
  // Column runs, one after another, for as long as the load lasts.
  let loading = true;
  const runs: { ms: number; status: string }[] = [];
  const running = (async () => {
    while (loading) {
      const started = performance.now();
      const res = await call(url, 'POST', `/api/tables/${run.tableId}/columns/${run.resultColumnId}/run`, {
        headers: bearer(key),
        body: { scope: 'all' },
      });
      if (res.status !== 202)
        throw new Error(`a column run answered ${res.status}: ${JSON.stringify(res.body)}`);
      const ended = await runEnded(url, key, res.body.id, 600_000);
      runs.push({ ms: performance.now() - started, status: ended.status });
    }
  })();
  // The rebuild, midway: `stk admin` in its own process, beside the service's live runner.
  const rebuild = sleep((settings.seconds * 1000) / 2).then(async () => {
    log('starting the rebuild of rows');
    const started = performance.now();
    const child = spawnAdmin(database.url, ['projections', 'rebuild', 'rows']);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    return { code, ms: performance.now() - started };
  });
  log(`${settings.connections} connections for ${settings.seconds} s`);
  const received0 = receiver.received.length;
  const results = await Promise.all(
    groups.map((g) =>
      autocannon({ url, connections: g.connections, duration: settings.seconds, requests: [g.request] }),
    ),
  );
  const endedAt = performance.now();
  const receivedAtEnd = receiver.received.length;
  loading = false;
  underLoad = false;
  const { lagMs, currentMs } = await untilCaughtUp(url, endedAt);
  // Every inserted row's message, however long the deliveries queued under the load take to drain.
  const receivedUnderLoad = receivedAtEnd - received0;
  const inserted = await insertedRows(database.url, tableId, settings.rows);
  let deliveredMs: number | undefined;
  while (performance.now() - endedAt < 120_000) {
    if (receiver.received.length - received0 >= inserted) {
      deliveredMs = performance.now() - endedAt;
      break;
    }
    await sleep(50);
  }
  const rebuilt = await rebuild;
  await running;
  clearInterval(sampler);

  const rows = groups.map((g, i) => routeRow(g, results[i]!));
  console.log(textTable(ROUTE_HEADERS, rows));
  const delivered = receiver.received.length - received0;
  // What the load appended, by type (the projections' runners read all of it).
  const logged = await mostFrequentEventTypes(database.url);
  const observations: LoadObservations = {
    settings,
    results,
    rows,
    rss,
    scrapes,
    runs,
    delivered,
    receivedUnderLoad,
    inserted,
    deliveredMs,
    lagMs,
    currentMs,
    rebuilt,
    logged,
  };
  const facts = loadFacts(observations);
  for (const f of facts) console.log(f);
  await writeBenchmarkSection('Load', loadMarkdown(observations, facts, server, loadAtStart));
} finally {
  await service.stop('SIGTERM');
  await receiver.close();
  await target.close();
  await fake.close();
  await server.stop();
}
