import type { Pool } from '../../src/db/pool.ts';

/** The lag samples of the last hour (processes/console/lag-sampler.ts), per projection, oldest first. */
export interface LagSeries {
  /** Seconds since the epoch. */
  at: number[];
  events: number[];
  seconds: number[];
}

export async function lagSeries(pool: Pool, projection?: string): Promise<Map<string, LagSeries>> {
  const { rows } = await pool.query<{
    projection: string;
    t: number;
    lag_events: number;
    lag_seconds: number;
  }>(
    `SELECT projection, extract(epoch FROM at)::float8 AS t, lag_events, lag_seconds FROM projection_lag_samples
     WHERE at > now() - interval '1 hour' AND ($1::text IS NULL OR projection = $1) ORDER BY at`,
    [projection ?? null],
  );
  const series = new Map<string, LagSeries>();
  for (const r of rows) {
    let s = series.get(r.projection);
    if (!s) {
      s = { at: [], events: [], seconds: [] };
      series.set(r.projection, s);
    }
    s.at.push(r.t);
    s.events.push(r.lag_events);
    s.seconds.push(r.lag_seconds);
  }
  return series;
}
