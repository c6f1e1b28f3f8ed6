import { loadavg } from 'node:os';
import type autocannon from 'autocannon';
import { ROUTE_HEADERS } from './load-routes.ts';
import type { BenchServer } from './postgres.ts';
import { describeMachine, markdownTable } from './report.ts';
import { furthestBehind, type MetricsSample, spread } from './service-metrics.ts';

// What the numbers of the last recorded run mean (written by hand after reading them; kept with the
// section so that a rerun does not lose it; revise it when the numbers change).
const READING =
  'How to read it: measured on a quiet machine (nothing else running). A write answers after its events are committed and, for up to 5 s, after its read model shows them (read-your-writes), so write latency is mostly how far the read models are behind. What brought the writes from a p50 of 1.5-2 s (p99 5-6 s) to 0.3-0.5 s (p99 under 1 s) with five times the throughput: readers of the log are held back only by transactions that may append (a webhook-reactor batch of 12 s, one query per event, used to stall all 23 projections; see docs/architecture.md, "Gap-free global order"), projections and the work queue have a pool of their own (DB_BACKGROUND_POOL_SIZE), and commands of one process on one stream take turns (the PATCH group writes one column: they raced, lost on the revision and read again). The lag counts, for each projection, the events of the types it applies after its checkpoint, summed: about a hundred under load, where every read model was within a second of the log. It used to count every event after the stored checkpoint, and idle projections store theirs only once a second over events they do not apply, so it read thousands under load and came back to zero only once nothing at all was appended any more (5.45 s, 5.81 s and 7.22 s in earlier runs; 0.43 s and 1.01 s since). A /metrics scrape reads every lag in one statement (it was three a projection, 1.4 s under load). The webhook messages queued under the load (the receiver answers from the busy benchmark process) drain within a few seconds after it.';

/** What bench/load.ts observed besides the route table. */
export interface LoadObservations {
  settings: { connections: number; seconds: number; runRows: number };
  /** One autocannon result per route group, and the route table's rows made from them. */
  results: autocannon.Result[];
  rows: string[][];
  /** The service's RSS in MiB, sampled each second. */
  rss: number[];
  scrapes: MetricsSample[];
  runs: { ms: number; status: string }[];
  /** Webhook messages received in all, during the load, and the rows they were for. */
  delivered: number;
  receivedUnderLoad: number;
  inserted: number;
  /** Milliseconds after the load until the last message, the projections' lag zero, every read model current. */
  deliveredMs: number | undefined;
  lagMs: number | undefined;
  currentMs: number | undefined;
  rebuilt: { code: number | null; ms: number };
  /** The most frequent event types in the log at the end. */
  logged: string;
}

/** The facts below the route table, one sentence each; the load average is read now, as "at the end". */
export function loadFacts(o: LoadObservations): string[] {
  const { settings, rss, runs, scrapes, lagMs, currentMs, deliveredMs, rebuilt } = o;
  const errors = o.results.reduce((s, r, i) => s + r.errors + (r.non2xx - Number(o.rows[i]![6])), 0);
  const mib = (v: number | undefined) => (v === undefined ? 'n/a' : `${v.toFixed(0)} MiB`);
  return [
    `Errors other than 429: ${errors} (load average ${loadavg()[0]!.toFixed(1)} at the end).`,
    `Service RSS, sampled each second: ${mib(rss[0])} at the start, ${mib(Math.max(...rss))} at most, ${mib(rss[rss.length - 1])} at the end.`,
    `Column runs of ${settings.runRows} rows (http_request to a loopback target, 8 at once), one after another: ${runs.length} finished (${runs.filter((r) => r.status === 'succeeded').length} succeeded), ${runs.length ? Math.round(runs.reduce((s, r) => s + r.ms, 0) / runs.length) : 0} ms each on average.`,
    `Webhook messages: ${o.delivered.toLocaleString('en-US')} received for the ${o.inserted.toLocaleString('en-US')} rows the load inserted (one message each), ${o.receivedUnderLoad.toLocaleString('en-US')} of them during the load (the receiver shares the benchmark's process with autocannon); ${deliveredMs === undefined ? 'not all within 120 s' : `the last ${(deliveredMs / 1000).toFixed(2)} s after the load ended`}.`,
    `Rebuild of rows (stk admin, started at ${settings.seconds / 2} s): exit ${rebuilt.code}, ${(rebuilt.ms / 1000).toFixed(1)} s.`,
    `Sampled each second under load from GET /metrics: projection lag ${spread(
      scrapes.map((s) => s.lag),
      ' events',
    )}; callers waiting for a pooled database connection ${spread(scrapes.map((s) => s.waiting))}; event-loop lag ${spread(
      scrapes.map((s) => s.loopMs),
      ' ms',
    )}.`,
    `Events in the log at the end, the most frequent types: ${o.logged}.`,
    `Projections furthest behind under load (largest lag in seconds): ${furthestBehind(scrapes)}.`,
    `Projection lag back to zero ${lagMs === undefined ? 'not within 120 s' : `${(lagMs / 1000).toFixed(2)} s`} after the load ended (target: 5 s); every read model within 1 s of the log ${currentMs === undefined ? 'not within 120 s' : `${(currentMs / 1000).toFixed(2)} s`} after it.`,
  ];
}

/** The body of the `## Load` section of docs/benchmarks.md: the setup, the route table, the facts, READING. */
export function loadMarkdown(
  o: LoadObservations,
  facts: string[],
  server: BenchServer,
  loadAtStart: string,
): string {
  const { settings } = o;
  return `Measured ${new Date().toISOString().slice(0, 10)} on ${describeMachine()}, PostgreSQL ${server.version} (${server.origin}), load average ${loadAtStart} at the start. One service process (\`app/main.ts\`), ${settings.connections} connections for ${settings.seconds} s split over the routes below (autocannon, one instance per route, in the benchmark's process on the same machine).\n\n${markdownTable(ROUTE_HEADERS, o.rows)}\n\n${facts.map((f) => `- ${f}`).join('\n')}\n\n${READING}`;
}
