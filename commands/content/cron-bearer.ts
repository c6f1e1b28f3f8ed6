import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashSecret, secretMatches } from '../../src/auth/keys.ts';
import { AppError } from '../../src/errors.ts';
import { bearerToken } from '../../src/http/access-hook.ts';

/** Wrong cron bearers one client address may send per window before all its bearers are refused. */
export const BEARER_FAILURES_ALLOWED = 10;
const BEARER_FAILURE_WINDOW_MS = 15 * 60_000;

/** Timing-safe: both sides are hashed first, so neither the length nor a prefix of the secret leaks. */
export function isCronAuthorized(header: string | undefined, secret: string | undefined): boolean {
  const token = bearerToken(header);
  return !!secret && token !== undefined && secretMatches(token, hashSecret(secret));
}

/** The 429 of every limit of the sync endpoint: a problem with `Retry-After` in whole seconds. */
export function rateLimited(what: string, ttlMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(ttlMs / 1000));
  return new AppError('rate_limited', `Too many ${what}; retry in ${seconds} s.`, {
    headers: { 'Retry-After': String(seconds) },
  });
}

/**
 * The check of `Authorization: Bearer <CRON_SECRET>` (GET and empty POST alike), limited per client
 * address with @fastify/rate-limit (the scope must have it registered). Only failures count, so the
 * scheduler is never limited by its own syncs, nor by failures from other addresses. Once an address
 * has failed BEARER_FAILURES_ALLOWED times in the window, every bearer it sends is refused with a 429
 * until the window ends, the right one included: otherwise the answer would still tell a right guess
 * from a wrong one. The count is read, then raised after a failure; with the in-process store both
 * run without yielding to other requests, so concurrent guesses cannot all slip past the read.
 */
export function cronBearerCheck(scope: FastifyInstance, secret: string | undefined) {
  const failures = scope.createRateLimit({
    max: BEARER_FAILURES_ALLOWED,
    timeWindow: BEARER_FAILURE_WINDOW_MS,
  });
  return async (request: FastifyRequest): Promise<void> => {
    const seen = await failures(request, { increment: false });
    if (!seen.isAllowed && seen.remaining === 0) throw rateLimited('failed bearer checks', seen.ttl);
    if (isCronAuthorized(request.headers.authorization, secret)) return;
    await failures(request);
    throw new AppError('unauthorized', 'The bearer token is not the cron secret.', {
      headers: { 'WWW-Authenticate': 'Bearer realm="sync"' },
    });
  };
}
