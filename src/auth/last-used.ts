import { API_KEYS } from '../../projections/api-keys.ts';
import type { Pool } from '../db/pool.ts';

const INTERVAL_MS = 60_000;

/**
 * Records when each key was last used, at most once per key per minute and off the request's path.
 *
 * Why a direct UPDATE of the read model rather than an event: "last used" is telemetry, not a business
 * fact. As events it would add one entry per active key per minute to the log forever, and every
 * projection would have to page past them. The price is that a rebuild of the api_keys projection
 * starts with `last_used_at` empty until each key is used again, which is acceptable for a hint shown
 * in key listings. The write is fire-and-forget: a failure costs one missed timestamp, never a request.
 */
export class LastUsedRecorder {
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
      .query(`UPDATE ${API_KEYS} SET last_used_at = now() WHERE key_id = $1`, [keyId])
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
