import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { edgeProblem, errorHandler, type Problem, problemOf } from './problem.ts';
import { isTrustedPeer } from './trusted-peer.ts';

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

const REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

/**
 * A well-formed `x-request-id` from a trusted proxy, else a new one: it becomes the correlationId of
 * the events the request appends, so only a trusted proxy may name it.
 */
export function requestIdOf(trustProxy: Config['TRUST_PROXY'], request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  const trusted = isTrustedPeer(trustProxy, request.socket.remoteAddress);
  return trusted && typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * Node's 'checkExpectation': an `Expect` header other than `100-continue`. Left unheard, Node answers a
 * bare 417 with no body before fastify sees the request; this answers the same status as a problem.
 */
export function expectationHandler(config: Config, logger: Logger) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const requestId = requestIdOf(config.TRUST_PROXY, request);
    const problem = problemOf(
      'expectation_failed',
      'The only expectation this service meets is "Expect: 100-continue".',
      requestId,
    );
    response
      .writeHead(problem.status, {
        'content-type': 'application/problem+json',
        'x-request-id': requestId,
        connection: 'close',
      })
      .end(JSON.stringify(problem));
    logger.info({ reqId: requestId, status: problem.status, reason: 'expectation' }, 'client error');
  };
}

/**
 * HTTP/1.1 requires a Host header (RFC 9112, 3.2). Node checks it itself unless told not to
 * (`requireHostHeader`, off below), and then answers a bare 400 before fastify sees the request;
 * checked here instead, the answer is a problem like every other refusal.
 */
export async function requireHost(request: FastifyRequest): Promise<void> {
  if (request.raw.httpVersion === '1.1' && request.headers.host === undefined)
    throw new AppError('bad_request', 'An HTTP/1.1 request needs a Host header.');
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
      // requireHost (an onRequest hook) refuses a missing Host with a problem body instead.
      requireHostHeader: false,
    },
    clientErrorHandler: clientErrorHandler(logger),
    frameworkErrors,
    // Requests arriving while the app closes get our 503 problem (app.ts), not fastify's own body.
    return503OnClosing: false,
  };
}
