/**
 * Load benchmark (`npm run bench:load`): one service process (`src/main.ts`, as deployed) on a fresh
 * database, BENCH_CONNECTIONS (64) connections for BENCH_SECONDS (60 s) of a mixed workload, split in
 * groups so that each route has its own latencies (autocannon, one instance per group, in this process):
 * column and row reads, blog pages, column PATCHes, row inserts (each a row.created message to a
 * loopback webhook receiver), named content syncs against the fake content API. Beside it, column runs
 * one after another against a loopback target, and midway `stk admin projections rebuild rows` in its
 * own process. Reported: per route requests, p50/p99 and every status other than 2xx (429s apart, as
 * intended answers), the service's RSS sampled each second, the runs and deliveries done, the rebuild's
 * time, and how long after the load the projections' lag (GET /metrics) was back to zero. Nothing is
 * asserted: the numbers go into the "Load" section of docs/benchmarks.md.
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import { bearer, bootstrapAccount, call } from '../test/support/accounts.ts';
import { runAdmin, spawnAdmin } from '../test/support/cli.ts';
import { generatedArticle } from '../test/support/content-samples.ts';
import { startFakeContentApi } from '../test/support/fake-content-api.ts';
import { onAdmin } from '../test/support/pg-server.ts';
import { createColumns, insertRows } from '../test/support/rows.ts';
import { httpColumnTable, runEnded, startTarget } from '../test/support/runs.ts';
import { startServiceProcess } from '../test/support/service-process.ts';
import { createTable } from '../test/support/tables.ts';
import { Receiver, subscribe } from '../test/support/webhooks.ts';
import { startBenchServer } from './lib/postgres.ts';
import { describeMachine, markdownTable, textTable, writeBenchmarkSection } from './lib/report.ts';
import { numberFromEnv } from './lib/timing.ts';

const settings = {
  connections: numberFromEnv('BENCH_CONNECTIONS', 64),
  seconds: numberFromEnv('BENCH_SECONDS', 60),
  articles: 50,
  rows: 1000,
  runRows: 200,
};
const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const loadAtStart = loadavg()[0]!.toFixed(1);
const CONTENT_KEY = 'bench-content-key';
// What the numbers of the last recorded run mean (written by hand after reading them; kept with the
// section so that a rerun does not lose it; revise it when the numbers change).
const READING =
  'How to read it: measured on a quiet machine (nothing else running). A write answers after its events are committed and, for up to 5 s, after its read model shows them (read-your-writes), so write latency is mostly how far the read models are behind. What brought the writes from a p50 of 1.5-2 s (p99 5-6 s) to 0.3-0.5 s (p99 under 1 s) with five times the throughput: readers of the log are held back only by transactions that may append (a webhook-reactor batch of 12 s, one query per event, used to stall all 23 projections; see docs/architecture.md, "Gap-free global order"), projections and the work queue have a pool of their own (DB_BACKGROUND_POOL_SIZE), and commands of one process on one stream take turns (the PATCH group writes one column: they raced, lost on the revision and read again). The lag counts, for each projection, the events of the types it applies after its checkpoint, summed: about a hundred under load, where every read model was within a second of the log. It used to count every event after the stored checkpoint, and idle projections store theirs only once a second over events they do not apply, so it read thousands under load and came back to zero only once nothing at all was appended any more (5.45 s, 5.81 s and 7.22 s in earlier runs; 0.43 s and 1.01 s since). A /metrics scrape reads every lag in one statement (it was three a projection, 1.4 s under load). The webhook messages queued under the load (the receiver answers from the busy benchmark process) drain within a few seconds after it.';

/** The service's resident set size in MiB, from /proc (Linux); undefined elsewhere. */
function rssMiB(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** What the service's GET /metrics says: projections' lag (events, summed), pool waiters, event-loop lag. */
async function scrape(
  url: string,
): Promise<{ lag: number; behind: Map<string, number>; waiting: number; loopMs: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const values = (pattern: RegExp) => [...text.matchAll(pattern)].map((m) => Number(m[1]));
  const behind = new Map(
    [...text.matchAll(/^stk_projection_lag_seconds\{projection="([^"]+)"\} ([\d.e-]+)/gm)].map(
      (m) => [m[1]!, Number(m[2])] as const,
    ),
  );
  return {
    lag: values(/^stk_projection_lag_events\{[^}]*\} (\d+)/gm).reduce((n, v) => n + v, 0),
    behind,
    waiting: values(/^stk_db_pool_connections\{pool="\w+",state="waiting"\} (\d+)/gm).reduce(
      (n, v) => n + v,
      0,
    ),
    loopMs: (values(/^stk_nodejs_eventloop_lag_seconds ([\d.e-]+)/gm)[0] ?? 0) * 1000,
  };
}

/** Rows the load inserted, counted in the log: a request the client gave up on may still have landed. */
async function insertedRows(databaseUrl: string, tableId: string): Promise<number> {
  return onAdmin(databaseUrl, async (c) => {
    const { rows } = await c.query<{ n: number }>(
      `SELECT coalesce(sum(jsonb_array_length(data->'rows')), 0)::int AS n FROM events
       WHERE type = 'RowsInserted' AND data->>'tableId' = $1`,
      [tableId],
    );
    return rows[0]!.n - settings.rows;
  });
}

/** The three projections whose lag in seconds was largest at some sample, with that lag. */
function furthestBehind(scrapes: { behind: Map<string, number> }[]): string {
  const worst = new Map<string, number>();
  for (const s of scrapes)
    for (const [name, seconds] of s.behind) worst.set(name, Math.max(worst.get(name) ?? 0, seconds));
  return [...worst]
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(process.env.BENCH_BEHIND ?? 3))
    .map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`)
    .join(', ');
}

/** The median and the largest of some samples, as text. */
const spread = (samples: number[], unit = '') => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return `median ${at(0.5).toFixed(0)}${unit}, largest ${at(1).toFixed(0)}${unit}`;
};

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
    CRON_SECRET: 'bench-cron-secret',
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
  const account = await bootstrapAccount(url);
  const key = account.apiKey;
  const granted = await runAdmin(database.url, [
    'credits',
    'grant',
    account.organizationId,
    '1000000',
    '--reason',
    'load benchmark',
  ]);
  if (granted.code !== 0) throw new Error(`granting credits failed: ${granted.stderr}`);
  log('setting up: a table of rows, a run table, a webhook subscription, a full content sync');
  const tableId = await createTable(url, key, 'Load');
  const columns = await createColumns(url, key, tableId, { name: 'text', score: 'number' });
  for (let i = 0; i < settings.rows; i += 500)
    await insertRows(
      url,
      key,
      tableId,
      Array.from({ length: 500 }, (_, k) => ({ name: `row ${i + k}`, score: i + k })),
    );
  const run = await httpColumnTable(url, key, target.url, 8);
  await insertRows(
    url,
    key,
    run.tableId,
    Array.from({ length: settings.runRows }, (_, i) => ({ n: String(i) })),
  );
  await subscribe(url, key, { url: receiver.url, eventTypes: ['row.created'] });
  const full = await fetch(`${url}/api/content/sync`, {
    headers: { authorization: 'Bearer bench-cron-secret' },
  });
  if (full.status !== 200) throw new Error(`the full sync answered ${full.status}`);
  const slugs = Array.from({ length: settings.articles }, (_, i) => generatedArticle(i, 0).slug);

  const auth = { ...bearer(key), 'content-type': 'application/json' };
  let n = 0;
  const share = (weight: number) => Math.max(1, Math.round((settings.connections * weight) / 64));
  const groups: { route: string; connections: number; request: autocannon.Request }[] = [
    {
      route: 'GET /api/tables/{id}/columns',
      connections: share(8),
      request: { method: 'GET', path: `/api/tables/${tableId}/columns`, headers: auth },
    },
    {
      route: 'GET /api/tables/{id}/rows',
      connections: share(10),
      request: { method: 'GET', path: `/api/tables/${tableId}/rows?limit=50&sort=-score`, headers: auth },
    },
    {
      route: 'GET /blog/{slug}',
      connections: share(14),
      request: {
        method: 'GET',
        path: '/blog',
        setupRequest: (req) => ({ ...req, path: `/blog/${slugs[n++ % slugs.length]}` }),
      },
    },
    {
      route: 'PATCH /api/tables/{id}/columns/{id}',
      connections: share(10),
      request: {
        method: 'PATCH',
        path: `/api/tables/${tableId}/columns/${columns.name.id}`,
        headers: auth,
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ label: `Name ${n++}` }) }),
      },
    },
    {
      route: 'POST /api/tables/{id}/rows (5 rows)',
      connections: share(12),
      request: {
        method: 'POST',
        path: `/api/tables/${tableId}/rows`,
        headers: auth,
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({
            rows: Array.from({ length: 5 }, () => ({ cells: { name: `new ${n}`, score: n++ } })),
          }),
        }),
      },
    },
    {
      route: 'POST /api/content/sync (named)',
      connections: share(10),
      request: {
        method: 'POST',
        path: '/api/content/sync',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ items: [{ slug: slugs[n++ % slugs.length] }] }),
        }),
      },
    },
  ];

  const rss: number[] = [];
  const scrapes: Awaited<ReturnType<typeof scrape>>[] = [];
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
      const res = await call(url, 'POST', `/api/tables/${run.tableId}/columns/${run.columns.result.id}/run`, {
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
  let lagMs: number | undefined;
  // Also when every read model is within a second of the log again: background work the load left
  // (the run in flight, queued deliveries) still appends, so a lag of exactly zero waits for it too.
  let currentMs: number | undefined;
  while (performance.now() - endedAt < 120_000) {
    const sample = await scrape(url).catch(() => undefined);
    if (currentMs === undefined && sample && Math.max(0, ...sample.behind.values()) < 1)
      currentMs = performance.now() - endedAt;
    if (sample?.lag === 0) {
      lagMs = performance.now() - endedAt;
      break;
    }
    await sleep(50);
  }
  // Every inserted row's message, however long the deliveries queued under the load take to drain.
  const receivedUnderLoad = receivedAtEnd - received0;
  const inserted = await insertedRows(database.url, tableId);
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

  const rows = groups.map((g, i) => {
    const r = results[i]!;
    const codes = Object.entries(r.statusCodeStats ?? {}) as [string, { count: number }][];
    const limited = codes.filter(([c]) => c === '429').reduce((s, [, v]) => s + v.count, 0);
    const other = codes.filter(([c]) => !/^2/.test(c) && c !== '429').map(([c, v]) => `${v.count}x${c}`);
    // autocannon counts a timeout (no answer within 10 s) among its errors too.
    if (r.timeouts > 0) other.push(`${r.timeouts} timeouts`);
    if (r.errors > r.timeouts) other.push(`${r.errors - r.timeouts} connection errors`);
    return [
      g.route,
      String(g.connections),
      r.requests.total.toLocaleString('en-US'),
      r.requests.average.toFixed(0),
      String(r.latency.p50),
      String(r.latency.p99),
      String(limited),
      other.join(', ') || '0',
    ];
  });
  const headers = ['route', 'conns', 'requests', 'req/s', 'p50 ms', 'p99 ms', '429', 'errors'];
  console.log(textTable(headers, rows));
  const errors = results.reduce((s, r, i) => s + r.errors + (r.non2xx - Number(rows[i]![6])), 0);
  const mib = (v: number | undefined) => (v === undefined ? 'n/a' : `${v.toFixed(0)} MiB`);
  const delivered = receiver.received.length - received0;
  // What the load appended, by type (the projections' runners read all of it).
  const logged = await onAdmin(database.url, async (c) => {
    const { rows } = await c.query<{ type: string; n: number }>(
      'SELECT type, count(*)::int AS n FROM events GROUP BY type ORDER BY n DESC LIMIT 6',
    );
    return rows.map((r) => `${r.type} ${r.n.toLocaleString('en-US')}`).join(', ');
  });
  const facts = [
    `Errors other than 429: ${errors} (load average ${loadavg()[0]!.toFixed(1)} at the end).`,
    `Service RSS, sampled each second: ${mib(rss[0])} at the start, ${mib(Math.max(...rss))} at most, ${mib(rss[rss.length - 1])} at the end.`,
    `Column runs of ${settings.runRows} rows (http_request to a loopback target, 8 at once), one after another: ${runs.length} finished (${runs.filter((r) => r.status === 'succeeded').length} succeeded), ${runs.length ? Math.round(runs.reduce((s, r) => s + r.ms, 0) / runs.length) : 0} ms each on average.`,
    `Webhook messages: ${delivered.toLocaleString('en-US')} received for the ${inserted.toLocaleString('en-US')} rows the load inserted (one message each), ${receivedUnderLoad.toLocaleString('en-US')} of them during the load (the receiver shares the benchmark's process with autocannon); ${deliveredMs === undefined ? 'not all within 120 s' : `the last ${(deliveredMs / 1000).toFixed(2)} s after the load ended`}.`,
    `Rebuild of rows (stk admin, started at ${settings.seconds / 2} s): exit ${rebuilt.code}, ${(rebuilt.ms / 1000).toFixed(1)} s.`,
    `Sampled each second under load from GET /metrics: projection lag ${spread(
      scrapes.map((s) => s.lag),
      ' events',
    )}; callers waiting for a pooled database connection ${spread(scrapes.map((s) => s.waiting))}; event-loop lag ${spread(
      scrapes.map((s) => s.loopMs),
      ' ms',
    )}.`,
    `Events in the log at the end, the most frequent types: ${logged}.`,
    `Projections furthest behind under load (largest lag in seconds): ${furthestBehind(scrapes)}.`,
    `Projection lag back to zero ${lagMs === undefined ? 'not within 120 s' : `${(lagMs / 1000).toFixed(2)} s`} after the load ended (target: 5 s); every read model within 1 s of the log ${currentMs === undefined ? 'not within 120 s' : `${(currentMs / 1000).toFixed(2)} s`} after it.`,
  ];
  for (const f of facts) console.log(f);
  await writeBenchmarkSection(
    'Load',
    `Measured ${new Date().toISOString().slice(0, 10)} on ${describeMachine()}, PostgreSQL ${server.version} (${server.origin}), load average ${loadAtStart} at the start. One service process (\`src/main.ts\`), ${settings.connections} connections for ${settings.seconds} s split over the routes below (autocannon, one instance per route, in the benchmark's process on the same machine).\n\n${markdownTable(headers, rows)}\n\n${facts.map((f) => `- ${f}`).join('\n')}\n\n${READING}`,
  );
} finally {
  await service.stop('SIGTERM');
  await receiver.close();
  await target.close();
  await fake.close();
  await server.stop();
}
