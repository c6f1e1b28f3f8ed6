import { readFileSync } from 'node:fs';

/** The service's resident set size in MiB, from /proc (Linux); undefined elsewhere. */
export function rssMiB(pid: number): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** One reading of the service's GET /metrics. */
export interface MetricsSample {
  /** Events the projections have yet to apply, summed over the projections. */
  lag: number;
  /** Seconds each projection is behind the log, by name. */
  behind: Map<string, number>;
  /** Callers waiting for a pooled database connection, over every pool. */
  waiting: number;
  loopMs: number;
}

/** What the service's GET /metrics says: projections' lag (events, summed), pool waiters, event-loop lag. */
export async function scrape(url: string): Promise<MetricsSample> {
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

/**
 * Scrapes every 50 ms, for up to two minutes after `since` (a performance.now() time), until the
 * projections' lag is zero: milliseconds after `since` until then (`lagMs`), and until every read
 * model was within a second of the log (`currentMs`); each undefined if it did not happen in time.
 * Background work the load left (the run in flight, queued deliveries) still appends, so a lag of
 * exactly zero waits for it too.
 */
export async function untilCaughtUp(
  url: string,
  since: number,
): Promise<{ lagMs: number | undefined; currentMs: number | undefined }> {
  let lagMs: number | undefined;
  let currentMs: number | undefined;
  while (performance.now() - since < 120_000) {
    const sample = await scrape(url).catch(() => undefined);
    if (currentMs === undefined && sample && Math.max(0, ...sample.behind.values()) < 1)
      currentMs = performance.now() - since;
    if (sample?.lag === 0) {
      lagMs = performance.now() - since;
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { lagMs, currentMs };
}

/** The projections whose lag in seconds was largest at some sample (BENCH_BEHIND of them, 3), with that lag. */
export function furthestBehind(scrapes: { behind: Map<string, number> }[]): string {
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
export const spread = (samples: number[], unit = '') => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return `median ${at(0.5).toFixed(0)}${unit}, largest ${at(1).toFixed(0)}${unit}`;
};
