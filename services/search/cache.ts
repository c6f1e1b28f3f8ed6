import { createHash } from 'node:crypto';
import type { Pool } from '../../src/db/pool.ts';

export const SEARCH_CACHE = 'search_cache';

/** Text the same for requests that mean the same: trimmed, spaces collapsed, lower case. */
const normalText = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();

/** A request as plain JSON with its keys sorted and absent values dropped, its strings normalised. */
function normalised(value: unknown): unknown {
  if (typeof value === 'string') return normalText(value);
  if (Array.isArray(value)) return value.map(normalised);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, normalised(v)]),
    );
  }
  return value;
}

/**
 * The cache key of a request to a provider: the operation (`web_search`, `linkedin_profile`, …) and
 * the normalised request, hashed. The API and column runs build the same key, so they share answers.
 */
export const cacheKey = (operation: string, request: object) =>
  createHash('sha256')
    .update(`${operation}\n${JSON.stringify(normalised(request))}`)
    .digest('base64url');

/** How often a put also sweeps the expired answers of every organization (an organization that stops
 * asking would keep its own for ever), and how many at most each time. */
const SWEEP_ALL_EVERY_MS = 3_600_000;
const SWEEP_ALL_BATCH = 10_000;

/** Answers of the providers per organization, for `ttlSeconds` (0: nothing is kept). */
export class SearchCache {
  /** When (by the `now` puts are given) the next put sweeps every organization's expired answers. */
  private sweepAllAt = 0;

  constructor(
    private readonly pool: Pool,
    private readonly ttlSeconds: number,
  ) {}

  /** The answer kept for this key, unless it expired by `now`. */
  async get(organizationId: string, key: string, now: Date): Promise<{ value: unknown } | undefined> {
    if (this.ttlSeconds === 0) return undefined;
    const { rows } = await this.pool.query<{ value: unknown }>(
      `SELECT value FROM ${SEARCH_CACHE} WHERE organization_id = $1 AND key = $2 AND expires_at > $3`,
      [organizationId, key, now],
    );
    return rows[0] ? { value: rows[0].value } : undefined;
  }

  /**
   * Keeps an answer; the organization's expired answers go in the same statement, and now and then
   * (SWEEP_ALL_EVERY_MS) a batch of every organization's.
   */
  async put(organizationId: string, key: string, provider: string, value: unknown, now: Date) {
    if (this.ttlSeconds === 0) return;
    const expires = new Date(now.getTime() + this.ttlSeconds * 1000);
    await this.pool.query(
      `WITH swept AS (DELETE FROM ${SEARCH_CACHE} WHERE organization_id = $1 AND expires_at <= $5 AND key <> $2)
       INSERT INTO ${SEARCH_CACHE} (organization_id, key, provider, value, expires_at)
       VALUES ($1, $2, $3, $4, $6)
       ON CONFLICT (organization_id, key) DO UPDATE SET provider = $3, value = $4, expires_at = $6`,
      [organizationId, key, provider, JSON.stringify(value), now, expires],
    );
    if (now.getTime() < this.sweepAllAt) return;
    this.sweepAllAt = now.getTime() + SWEEP_ALL_EVERY_MS;
    await this.pool.query(
      `DELETE FROM ${SEARCH_CACHE} WHERE ctid IN (SELECT ctid FROM ${SEARCH_CACHE} WHERE expires_at <= $1 LIMIT $2)`,
      [now, SWEEP_ALL_BATCH],
    );
  }
}
