import { realSleep, sleepUnlessAborted } from './sleep.ts';

/**
 * A token bucket per host, in memory: this process sends at most `perSecond` requests a second to one
 * host (bursts up to `burst`), however many runs and rows ask at once, so a table of 10,000 rows does not
 * hammer one API. Each process keeps its own buckets: N workers send at most N times the rate.
 */
export interface HostRateLimitOptions {
  perSecond: number;
  burst?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

interface Bucket {
  tokens: number;
  at: number;
}

// Buckets of hosts not asked for a while are dropped, so the map cannot grow with every host ever called.
const MAX_BUCKETS = 10_000;

export class HostRateLimit {
  private readonly buckets = new Map<string, Bucket>();
  private readonly burst: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: HostRateLimitOptions) {
    this.burst = Math.max(1, options.burst ?? options.perSecond);
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? realSleep;
  }

  /**
   * Takes one token of `host`, waiting for it when the bucket is empty; answers how long it waited.
   * The token is taken before the wait (the balance may go negative), so concurrent callers queue in
   * order instead of all waking at the same instant.
   */
  async take(host: string, signal?: AbortSignal): Promise<number> {
    const now = this.now();
    const bucket = this.refill(host, now);
    bucket.tokens -= 1;
    const waitMs = bucket.tokens >= 0 ? 0 : Math.ceil((-bucket.tokens * 1000) / this.options.perSecond);
    // A caller that gives up hands its token back to those behind it.
    if (waitMs > 0 && !(await sleepUnlessAborted(this.sleep, waitMs, signal))) {
      bucket.tokens += 1;
      signal?.throwIfAborted();
    }
    return waitMs;
  }

  private refill(host: string, now: number): Bucket {
    let bucket = this.buckets.get(host);
    if (!bucket) {
      if (this.buckets.size >= MAX_BUCKETS) this.dropFull(now);
      bucket = { tokens: this.burst, at: now };
      this.buckets.set(host, bucket);
      return bucket;
    }
    const earned = ((now - bucket.at) / 1000) * this.options.perSecond;
    bucket.tokens = Math.min(this.burst, bucket.tokens + earned);
    bucket.at = now;
    return bucket;
  }

  /** A full bucket holds nothing a new one would not: forgetting it changes no limit. */
  private dropFull(now: number): void {
    for (const [host, bucket] of this.buckets) {
      if (bucket.tokens + ((now - bucket.at) / 1000) * this.options.perSecond >= this.burst) {
        this.buckets.delete(host);
      }
    }
  }
}
