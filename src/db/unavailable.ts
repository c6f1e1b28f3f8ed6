/**
 * Whether an error means the database cannot serve right now (it is down, restarting, refusing
 * connections, or a statement ran past our bound) rather than that the request or our code is wrong.
 * Such errors are transient: requests answer 503 with Retry-After, projection runners retry.
 */

/** Node's socket errors when connecting to or talking with the server. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs: 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or
 * shutting down), 57014 query_canceled (our statement_timeout), 53300 too_many_connections; and the
 * whole class 08, connection exceptions.
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '57014', '53300']);

/** pg and pg-pool say these without a code. */
const MESSAGES = [
  /^Connection terminated/, // unexpectedly, or due to connection timeout
  /^timeout exceeded when trying to connect$/, // the pool's wait for a free client
  /is not queryable$/, // a client whose connection already failed
];

export function isDatabaseUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  // Node reports a refused connection to every address of a host name as one AggregateError.
  if (error instanceof AggregateError && error.errors.some(isDatabaseUnavailable)) return true;
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (SOCKET_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
  )
    return true;
  const message = (error as { message?: unknown }).message;
  return typeof message === 'string' && MESSAGES.some((m) => m.test(message));
}
