import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ServiceDeps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { principalOf } from './access-hook.ts';

/**
 * Idempotency-Key on every POST route: a retry with the same key and the same request gets the first
 * answer (status, body, Location) and changes nothing again; the same key with another request is a
 * 422. Keys are per organization and kept at least `KEEP_HOURS`. `installIdempotency` wires it into
 * every POST route as it is registered (its `config.idempotency` says otherwise); the hooks run after
 * authentication and validation, so a key is only ever claimed for a request that reached the handler.
 *
 * Only a success is kept: when the first request fails (a 4xx or 5xx), its key is released, so that the
 * client can retry with the same key once it has fixed the request or the service has recovered.
 *
 * A POST route that cannot honour the key refuses it: a 400 `idempotency_key_unsupported` naming the
 * header, before the body is validated or the handler runs. Such are a route whose answer holds a
 * secret shown once (`noStore` routes, an issued API key: keeping the answer to replay it would store
 * the secret), and a public route (no organization to keep the key under) unless it declares
 * `idempotency: { shared: true }`. Never is a key silently ignored on a POST.
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

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How a POST route takes Idempotency-Key (installIdempotency); honoured when absent. */
    idempotency?: IdempotencyOptions;
  }
}

export interface IdempotencyOptions {
  /** Refuse the key (400 idempotency_key_unsupported), for this reason, said in the answer. */
  refuse?: string;
  /**
   * A public route honours the key under one scope shared by every caller (the content sync, whose CMS
   * webhooks send keys); the credentials presented are part of what makes two requests the same.
   */
  shared?: boolean;
  /** How long a retry waits for the first request, still running, to answer (default 5 s). */
  waitMs?: number;
}

/** Where keys of a shared public route are kept: no organization id has this form. */
const SHARED_SCOPE = '(public)';

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

/** Method, URL and body; on a shared public route, the credentials presented too. */
const requestHash = (request: FastifyRequest, shared: boolean) =>
  createHash('sha256')
    .update(`${request.method} ${request.url}\n${canonical(request.body)}`)
    .update(shared ? `\n${request.headers.authorization ?? ''}` : '')
    .digest('hex');

interface Stored {
  request_hash: string;
  state: 'pending' | 'done';
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
}

type Deps = Pick<ServiceDeps, 'pool' | 'logger'> & {
  config?: Partial<Pick<ServiceDeps['config'], 'IDEMPOTENCY_LEASE_SECONDS'>>;
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

/** The header, when the request has one: a 400 naming it when it is not a key. */
function keyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  if (typeof header !== 'string' || !KEY.test(header)) {
    throw new AppError('validation_failed', 'Invalid headers: headers.idempotency-key', {
      errors: [{ path: 'headers.idempotency-key', message: '1 to 255 printable ASCII characters' }],
    });
  }
  return header;
}

async function preHandler(
  deps: Deps,
  options: IdempotencyOptions,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const header = keyOf(request);
  if (header === undefined) return;
  const shared = options.shared === true && request.principal === undefined;
  const c: Claim = {
    organizationId: shared ? SHARED_SCOPE : principalOf(request).organizationId,
    key: header,
    hash: requestHash(request, shared),
  };
  const waitMs = options.waitMs ?? WAIT_MS;
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
  // An answer no cache may keep is not kept here either (a route showing a secret should refuse keys).
  const secret = /no-store/i.test(String(reply.getHeader('cache-control') ?? ''));
  if (secret)
    request.log.error(
      { route: request.routeOptions.url },
      'an Idempotency-Key answer marked no-store was not kept',
    );
  try {
    if (reply.statusCode >= 200 && reply.statusCode < 300 && !secret) {
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

/** The header as a POST route's schema declares it (so that the OpenAPI document shows it). */
export const IdempotencyHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .regex(KEY, '1 to 255 printable ASCII characters')
    .optional()
    .describe(
      `A retry with the same key and the same request gets the first answer (with Idempotent-Replayed: true) and ` +
        `changes nothing again (keys are kept ${KEEP_HOURS} hours per organization); the same key with another ` +
        'request is a 422',
    ),
});

const refusedHeaders = (reason: string) =>
  z.looseObject({
    'idempotency-key': z
      .string()
      .optional()
      .describe(`Refused on this route (400 idempotency_key_unsupported): ${reason}`),
  });

/** Why a POST route refuses keys, or undefined when it honours them. */
function refusal(config: { access?: string; noStore?: boolean; idempotency?: IdempotencyOptions }) {
  if (config.idempotency?.refuse) return config.idempotency.refuse;
  if (config.noStore)
    return 'its answer holds a secret shown once, which the service does not keep to replay';
  if (config.access === 'public' && !config.idempotency?.shared)
    return 'a public route has no organization to keep the key under';
  return undefined;
}

const asArray = <T>(hooks: T | T[] | undefined): T[] =>
  hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks];

/**
 * Every POST route, as it is registered, honours Idempotency-Key or refuses it (see the top of this
 * file): its hooks and the header in its schema come from here, not from each route.
 */
export function installIdempotency(app: FastifyInstance, deps: Deps): void {
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST')) return;
    const config = (route.config ?? {}) as Parameters<typeof refusal>[0];
    const reason = refusal(config);
    const options = config.idempotency ?? {};
    if (reason) {
      // Before the body is validated: a refused key is refused whatever the body says.
      route.preValidation = [
        async (request: FastifyRequest) => {
          if (keyOf(request) === undefined) return;
          throw new AppError(
            'idempotency_key_unsupported',
            `This route does not take an Idempotency-Key: ${reason}.`,
            {
              errors: [{ path: 'headers.idempotency-key', message: `not taken here: ${reason}` }],
            },
          );
        },
        ...asArray(route.preValidation),
      ];
    } else {
      route.preHandler = [
        ...asArray(route.preHandler),
        (request: FastifyRequest, reply: FastifyReply) => preHandler(deps, options, request, reply),
      ];
      route.onSend = [
        ...asArray(route.onSend),
        (request: FastifyRequest, reply: FastifyReply, payload: unknown) =>
          onSend(deps, request, reply, payload),
      ];
    }
    if (!route.schema) return;
    const declared = reason ? refusedHeaders(reason) : IdempotencyHeaders;
    const headers = route.schema.headers as { extend?: (shape: object) => unknown } | undefined;
    if (headers === undefined) route.schema = { ...route.schema, headers: declared };
    else if (typeof headers.extend === 'function')
      route.schema = { ...route.schema, headers: headers.extend(declared.shape) };
  });
}
