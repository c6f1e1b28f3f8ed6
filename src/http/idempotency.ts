import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError } from '../errors.ts';
import { principalOf } from './access-hook.ts';
import type { AppDeps } from './app.ts';

/**
 * Idempotency-Key for POST routes: a retry with the same key and the same request gets the first
 * answer (status, body, Location) and changes nothing again; the same key with another request is a
 * 422. Keys are per organization and kept at least `KEEP_HOURS`. A route takes it with
 * `...idempotency(deps)` in its options; the hooks run after authentication and validation, so a key
 * is only ever claimed for a request that reached the handler.
 *
 * Only a success is kept: when the first request fails (a 4xx or 5xx), its key is released, so that the
 * client can retry with the same key once it has fixed the request or the service has recovered.
 */
export const KEEP_HOURS = 24;
/**
 * A claim whose request has not answered by then is taken to be lost (its process died): a retry takes it
 * over. The default; IDEMPOTENCY_LEASE_SECONDS sets it.
 */
const LEASE_SECONDS = 120;
/** How long a retry waits by default for the first request, still running, to answer. */
const WAIT_MS = 5000;
const POLL_MS = 50;
const REPLAYED_HEADERS = ['content-type', 'location', 'etag'];
const KEY = /^[\x20-\x7e]{1,255}$/;

interface Claim {
  organizationId: string;
  key: string;
  hash: string;
  /** When the first request with this key and this request claimed it: kept across takeovers. */
  firstClaimedMs?: number;
}

const claims = new WeakMap<FastifyRequest, Claim>();

/** JSON with object keys sorted: two bodies that differ only in key order are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const requestHash = (request: FastifyRequest) =>
  createHash('sha256')
    .update(`${request.method} ${request.url}\n${canonical(request.body)}`)
    .digest('hex');

interface Stored {
  request_hash: string;
  state: 'pending' | 'done';
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
}

type Deps = Pick<AppDeps, 'pool' | 'logger'> & {
  config?: Partial<Pick<AppDeps['config'], 'IDEMPOTENCY_LEASE_SECONDS'>>;
};

let lastSweep = 0;
const SWEEP_EVERY_MS = 10 * 60_000;

/** Drops a batch of expired keys now and then; a table that only grows would slow every claim. */
function sweep(deps: Deps): void {
  if (Date.now() - lastSweep < SWEEP_EVERY_MS) return;
  lastSweep = Date.now();
  deps.pool
    .query(
      `DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys
       WHERE created_at < now() - make_interval(hours => $1) LIMIT 10000)`,
      [KEEP_HOURS],
    )
    .catch((error: unknown) => deps.logger.warn({ err: error }, 'sweeping expired idempotency keys failed'));
}

/**
 * Claims the key for this request, or finds who has it. A key whose row has expired, or whose first
 * request with this same hash has held it past the lease, is taken over.
 */
async function claim(deps: Deps, c: Claim): Promise<Stored | undefined> {
  const lease = deps.config?.IDEMPOTENCY_LEASE_SECONDS ?? LEASE_SECONDS;
  // The claim being taken over, when it is this request's own (its process died): its time names the
  // same work again (see idempotentWork), so that a retry does not redo what the lost request did.
  const { rows } = await deps.pool.query<{ first_claimed_ms: string | null }>(
    `WITH prior AS (
       SELECT created_at FROM idempotency_keys
       WHERE organization_id = $1 AND key = $2 AND request_hash = $3 AND state = 'pending'
         AND created_at >= now() - make_interval(hours => $4))
     INSERT INTO idempotency_keys AS k (organization_id, key, request_hash, state) VALUES ($1, $2, $3, 'pending')
     ON CONFLICT (organization_id, key) DO UPDATE
       SET request_hash = EXCLUDED.request_hash, state = 'pending', status = NULL, headers = NULL, body = NULL,
           created_at = now()
       WHERE k.created_at < now() - make_interval(hours => $4)
          OR (k.state = 'pending' AND k.request_hash = EXCLUDED.request_hash
              AND k.created_at < now() - make_interval(secs => $5))
     RETURNING (extract(epoch FROM coalesce((SELECT created_at FROM prior), k.created_at)) * 1000)::bigint
       AS first_claimed_ms`,
    [c.organizationId, c.key, c.hash, KEEP_HOURS, lease],
  );
  if (rows.length > 0) {
    c.firstClaimedMs = Number(rows[0]!.first_claimed_ms);
    return undefined;
  }
  const found = await deps.pool.query<Stored>(
    'SELECT request_hash, state, status, headers, body FROM idempotency_keys WHERE organization_id = $1 AND key = $2',
    [c.organizationId, c.key],
  );
  // Released between the two statements (the first request failed): claim it again.
  return found.rows[0] ?? claim(deps, c);
}

const reused = () =>
  new AppError(
    'idempotency_key_reused',
    'This Idempotency-Key was used with another request; use a new key.',
  );

async function preHandler(deps: Deps, waitMs: number, request: FastifyRequest, reply: FastifyReply) {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return;
  if (typeof header !== 'string' || !KEY.test(header)) {
    throw new AppError('validation_failed', 'Invalid headers: headers.idempotency-key', {
      errors: [{ path: 'headers.idempotency-key', message: '1 to 255 printable ASCII characters' }],
    });
  }
  const c: Claim = {
    organizationId: principalOf(request).organizationId,
    key: header,
    hash: requestHash(request),
  };
  const deadline = Date.now() + waitMs;
  for (;;) {
    const stored = await claim(deps, c);
    if (!stored) {
      claims.set(request, c);
      sweep(deps);
      return;
    }
    if (stored.request_hash !== c.hash) throw reused();
    if (stored.state === 'done') {
      return reply
        .code(stored.status!)
        .headers({ ...stored.headers, 'idempotent-replayed': 'true' })
        .send(stored.body ?? undefined);
    }
    if (Date.now() > deadline) {
      throw new AppError(
        'idempotency_key_in_use',
        'A request with this Idempotency-Key is still being served; retry shortly.',
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * For a request that holds an Idempotency-Key: a seed and a time that are the same for every attempt of
 * it, also after its process died mid-request and a retry took the claim over. A route that names what it
 * writes after them (insert-rows' batch id) finds the lost attempt's write instead of writing it again.
 */
export function idempotentWork(request: FastifyRequest): { seed: string; timeMs: number } | undefined {
  const c = claims.get(request);
  if (!c?.firstClaimedMs) return undefined;
  return { seed: `${c.organizationId}\n${c.key}\n${c.hash}`, timeMs: c.firstClaimedMs };
}

/** Keeps the answer of a success under the claim, or releases the claim of a failure. */
async function onSend(deps: Deps, request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  const c = claims.get(request);
  if (!c) return payload;
  claims.delete(request);
  const where = 'organization_id = $1 AND key = $2 AND request_hash = $3 AND state = $4';
  try {
    if (reply.statusCode >= 200 && reply.statusCode < 300) {
      const headers = Object.fromEntries(
        REPLAYED_HEADERS.flatMap((name) => {
          const value = reply.getHeader(name);
          return value === undefined ? [] : [[name, String(value)]];
        }),
      );
      await deps.pool.query(
        `UPDATE idempotency_keys SET state = 'done', status = $5, headers = $6, body = $7 WHERE ${where}`,
        [
          c.organizationId,
          c.key,
          c.hash,
          'pending',
          reply.statusCode,
          headers,
          typeof payload === 'string' ? payload : null,
        ],
      );
    } else {
      await deps.pool.query(`DELETE FROM idempotency_keys WHERE ${where}`, [
        c.organizationId,
        c.key,
        c.hash,
        'pending',
      ]);
    }
  } catch (error) {
    // The answer still goes out; a retry then finds the claim pending and, after the lease, runs again.
    request.log.error({ err: error }, 'recording the answer of an idempotent request failed');
  }
  return payload;
}

/** The header as the route's schema declares it (so that the OpenAPI document shows it). */
export const IdempotencyHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .regex(KEY, '1 to 255 printable ASCII characters')
    .optional()
    .describe(
      `A retry with the same key and the same request gets the first answer and changes nothing again (keys are ` +
        `kept ${KEEP_HOURS} hours per organization); the same key with another request is a 422`,
    ),
});

/** Route options that make a POST route honour Idempotency-Key (declare IdempotencyHeaders in its schema too). */
export function idempotency(deps: Deps, options: { waitMs?: number } = {}) {
  const waitMs = options.waitMs ?? WAIT_MS;
  return {
    preHandler: (request: FastifyRequest, reply: FastifyReply) => preHandler(deps, waitMs, request, reply),
    onSend: (request: FastifyRequest, reply: FastifyReply, payload: unknown) =>
      onSend(deps, request, reply, payload),
  };
}
