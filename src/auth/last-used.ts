import type { Pool } from '../db/pool.ts';

const INTERVAL_MS = 60_000;

/** One row per key that has been used; outside the api_keys read model (the migration explains why). */
export const API_KEY_USAGE = 'api_key_usage';

/**
 * Records when each key was last used, at most once per key per minute and off the request's path.
 *
 * Why a table of its own rather than an event: "last used" is telemetry, not a business fact. As events
 * it would add one entry per active key per minute to the log forever, and every projection would have
 * to page past them. Kept apart from the api_keys read model, a rebuild of that projection leaves it
 * as it was. The write is fire-and-forget: a failure costs one missed timestamp, never a request.
 */
export class LastUsedRecorder {
  /** The write of one use, `$1` the id; another kind of thing used (a secret's key) brings its own. */
  protected readonly statement: string =
    `INSERT INTO ${API_KEY_USAGE} (key_id, last_used_at) VALUES ($1, now())
     ON CONFLICT (key_id) DO UPDATE SET last_used_at = EXCLUDED.last_used_at`;
  private readonly written = new Map<string, number>();
  private inflight = new Set<Promise<unknown>>();

  constructor(
    private readonly pool: Pool,
    private readonly intervalMs = INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  record(keyId: string): void {
    const now = this.now();
    const last = this.written.get(keyId);
    if (last !== undefined && now - last < this.intervalMs) return;
    this.written.set(keyId, now);
    if (this.written.size > 10_000) this.prune(now);
    const write = this.pool
      .query(this.statement, [keyId])
      .catch(() => {})
      .finally(() => this.inflight.delete(write));
    this.inflight.add(write);
  }

  /** Resolves once the writes started so far are done (tests, shutdown). */
  async settled(): Promise<void> {
    await Promise.all([...this.inflight]);
  }

  private prune(now: number): void {
    for (const [keyId, at] of this.written) if (now - at >= this.intervalMs) this.written.delete(keyId);
  }
}
