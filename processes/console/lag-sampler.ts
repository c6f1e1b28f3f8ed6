import type { ServiceDeps } from '../../src/deps.ts';
import { projectionReports } from '../../src/projection/status-admin.ts';

/** How often each projection's lag is sampled for the console's chart, and how long samples are kept. */
export const LAG_SAMPLE_SECONDS = 10;
const KEEP_HOURS = 2;

/**
 * Samples every projection's lag (events and seconds, as `stk admin projections status` reads it) into
 * projection_lag_samples every LAG_SAMPLE_SECONDS, for the console's lag chart over the last hour.
 * Every process of the service samples; the sample time is truncated to the period, so they write one
 * row per projection and period between them. A failed sample (the database away) is skipped.
 */
export class LagSampler {
  private timer?: NodeJS.Timeout;
  private inFlight?: Promise<void>;

  constructor(
    private readonly deps: Pick<ServiceDeps, 'store' | 'pool' | 'projections' | 'logger' | 'backgroundPool'>,
    private readonly periodMs = LAG_SAMPLE_SECONDS * 1000,
  ) {}

  start(): void {
    const tick = () => {
      this.inFlight ??= this.sample()
        .catch((error) => this.deps.logger.debug({ err: error }, 'lag sample skipped'))
        .finally(() => {
          this.inFlight = undefined;
        });
    };
    tick();
    this.timer = setInterval(tick, this.periodMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.inFlight;
  }

  async sample(): Promise<void> {
    const pool = this.deps.backgroundPool ?? this.deps.pool;
    const projections = [...this.deps.projections.runners.values()].map((r) => r.projection);
    if (projections.length === 0) return;
    const reports = await projectionReports(this.deps.store, pool, projections, { auditLimit: 0 });
    const samples = reports.map((r) => ({
      projection: r.name,
      events: r.lag.events,
      seconds: r.lag.seconds,
    }));
    await pool.query(
      `WITH sampled AS (
         INSERT INTO projection_lag_samples (projection, at, lag_events, lag_seconds)
         SELECT s.projection, to_timestamp(floor(extract(epoch FROM now()) / $2) * $2), s.events, s.seconds
         FROM jsonb_to_recordset($1::jsonb) AS s(projection text, events integer, seconds float8)
         ON CONFLICT (projection, at) DO NOTHING
       )
       DELETE FROM projection_lag_samples WHERE at < now() - make_interval(hours => $3)`,
      [JSON.stringify(samples), this.periodMs / 1000, KEEP_HOURS],
    );
  }
}
