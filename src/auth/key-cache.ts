import type { Principal } from './scopes.ts';

interface Entry {
  secretHash: string;
  principal: Principal;
  expiresAt: number;
}

/**
 * Verified keys of one process: key id -> the secret's hash and the principal, so that a request
 * with a known key needs no database round trip. Only what the api_keys row says is cached, never
 * whether a presented secret matched; every request still hashes and compares its own secret.
 *
 * Correctness rests on three rules (see revocation-listener.ts for where the invalidations come from):
 * - the cache serves only while it is `enabled`, i.e. while revocation notices are known to arrive;
 * - `invalidate` drops the key and bumps a generation, and `set` stores only when the generation is
 *   still the one read before the database lookup, so a lookup that raced a revocation is not kept;
 * - entries expire after `ttlMs` anyway, a backstop for a notice lost in some way not foreseen.
 */
export class VerifiedKeyCache {
  private readonly entries = new Map<string, Entry>();
  private epoch = 0;
  private enabled = false;
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Read before a database lookup; hand it back to `set`. */
  get generation(): number {
    return this.epoch;
  }

  get active(): boolean {
    return this.enabled;
  }

  get(keyId: string): Entry | undefined {
    if (!this.enabled) return undefined;
    const entry = this.entries.get(keyId);
    if (entry && entry.expiresAt <= this.now()) {
      this.entries.delete(keyId);
      return undefined;
    }
    return entry;
  }

  set(keyId: string, secretHash: string, principal: Principal, generation: number): void {
    if (!this.enabled || generation !== this.epoch) return;
    if (this.entries.size >= this.maxEntries && !this.entries.has(keyId)) {
      // Oldest first: Map keeps insertion order.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(keyId, { secretHash, principal, expiresAt: this.now() + this.ttlMs });
  }

  invalidate(keyId: string): void {
    this.entries.delete(keyId);
    this.epoch++;
    const waiting = this.waiters.get(keyId);
    this.waiters.delete(keyId);
    for (const resolve of waiting ?? []) resolve();
  }

  /** Resolves at the next invalidation of `keyId` (tests of cross-process revocation). */
  invalidated(keyId: string): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(keyId) ?? new Set();
      set.add(resolve);
      this.waiters.set(keyId, set);
    });
  }

  /** Starts (or stops) serving; either way whatever was cached before is forgotten. */
  setEnabled(enabled: boolean): void {
    this.entries.clear();
    this.epoch++;
    this.enabled = enabled;
  }
}
