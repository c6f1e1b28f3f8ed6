import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { edgeProblem, errorHandler, type Problem, problemOf } from './problem.ts';

/** Node's HTTP parser errors (raised before any request exists) by the status they answer. */
const CLIENT_ERROR_STATUS: Record<string, number> = {
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
};

/** A whole HTTP response as text, for a socket no fastify reply exists for. */
function rawProblem(problem: Problem): string {
  const body = JSON.stringify(problem);
  return [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status]}`,
    'Content-Type: application/problem+json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${problem.requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * Node's 'clientError': a request timed out (REQUEST_TIMEOUT_MS), its headers overflowed, or it is
 * not HTTP at all. Node (and fastify's default) would write a bare or `{ error, message }` answer;
 * this writes the problem body every other error gets, then closes the connection as Node does.
 */
export function clientErrorHandler(logger: Logger) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const status = CLIENT_ERROR_STATUS[error.code ?? ''] ?? 400;
    const requestId = randomUUID();
    const problem =
      edgeProblem(status, requestId) ?? problemOf('bad_request', 'The request is not valid HTTP.', requestId);
    // As Node does: never write into a response already under way on this connection.
    const current = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !current?.headersSent) socket.write(rawProblem(problem));
    logger.info({ reqId: requestId, status, reason: error.code }, 'client error');
    socket.destroy();
  };
}

/**
 * Errors fastify raises while routing (a malformed URL, a path parameter over `maxParamLength`)
 * before the request has a route: through the one problem mapper, with the request id returned.
 */
function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  reply.header('x-request-id', request.id);
  return errorHandler(error, request, reply);
}

/**
 * Node checks for expired requests every `connectionsCheckingInterval` (30 s by default), so a 1 s
 * request timeout would fire anywhere up to 31 s; check at a quarter of the timeout, at most every
 * second.
 */
const checkEvery = (timeoutMs: number) => Math.max(10, Math.min(1_000, Math.floor(timeoutMs / 4)));

/** The fastify options of the HTTP edge: timeouts, and problem bodies for what happens before routing. */
export function edgeOptions(config: Config, logger: Logger) {
  return {
    requestTimeout: config.REQUEST_TIMEOUT_MS,
    keepAliveTimeout: config.KEEP_ALIVE_TIMEOUT_MS,
    // Given at construction too: Node derives the headers timeout, min(60 s, request timeout), from it.
    http: {
      requestTimeout: config.REQUEST_TIMEOUT_MS,
      connectionsCheckingInterval: checkEvery(config.REQUEST_TIMEOUT_MS),
    },
    clientErrorHandler: clientErrorHandler(logger),
    frameworkErrors,
    // Requests arriving while the app closes get our 503 problem (app.ts), not fastify's own body.
    return503OnClosing: false,
  };
}
