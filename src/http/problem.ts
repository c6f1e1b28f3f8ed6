import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { AppError, type ErrorCode, errorCatalogue, type FieldError, invalidDetail } from '../errors.ts';

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  requestId: string;
  errors?: FieldError[];
  [key: string]: unknown;
}

/**
 * The problem body as the OpenAPI document describes it (components.schemas.Problem): every route
 * answers its 4xx and 5xx with one (src/http/openapi.ts documents them all in one place). Extra members
 * (a limit, a retry time) may follow the fixed ones.
 */
export const problemJsonSchema = {
  type: 'object',
  description: 'An RFC 9457 problem; `code` names the error (docs/errors.md)',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    code: { type: 'string', enum: Object.keys(errorCatalogue) },
    requestId: { type: 'string' },
    errors: {
      type: 'array',
      description: 'Each field that was refused, by path',
      items: {
        type: 'object',
        properties: { path: { type: 'string' }, message: { type: 'string' } },
        required: ['path', 'message'],
      },
    },
  },
  required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
};

export function problemOf(
  code: ErrorCode,
  detail: string,
  requestId: string,
  extra: Record<string, unknown> = {},
) {
  const { status, title } = errorCatalogue[code];
  return { type: `about:blank#${code}`, title, status, detail, code, requestId, ...extra } as Problem;
}

export function sendProblem(reply: FastifyReply, problem: Problem, headers: Record<string, string> = {}) {
  return reply.code(problem.status).headers(headers).type('application/problem+json').send(problem);
}

/**
 * What fastify, its plugins and Node's HTTP parser refuse before any handler runs, by status: the
 * catalogue code and what to tell the client. Any other 4xx of theirs is a `bad_request`.
 */
const EDGE_PROBLEMS: Partial<Record<number, [ErrorCode, string]>> = {
  408: ['request_timeout', 'The request headers and body did not arrive in time.'],
  413: ['payload_too_large', 'The request body is larger than allowed.'],
  414: ['uri_too_long', 'A path segment of the URL is longer than allowed.'],
  415: ['unsupported_media_type', 'Send the body as application/json.'],
  429: ['rate_limited', 'Too many requests; retry later.'],
  431: ['headers_too_large', 'The request headers are larger than allowed.'],
};

export function edgeProblem(status: number, requestId: string): Problem | undefined {
  const known = EDGE_PROBLEMS[status];
  return known && problemOf(known[0], known[1], requestId);
}

/** `/items/1/name` (a JSON pointer) as `items[1].name`. */
function pointerToPath(pointer: string): string {
  return pointer
    .replace(/^\//, '')
    .replace(/\/(\d+)(?=\/|$)/g, '[$1]')
    .replace(/\//g, '.');
}

/** Input validation issues, wherever they came from (body, query, params, headers), naming each path. */
function validationErrors(error: FastifyError): FieldError[] {
  const where = error.validationContext ?? 'body';
  const prefix = where === 'body' ? '' : `${where}.`;
  const named = (path: string) => `${prefix}${path}` || where;
  return (error.validation ?? []).flatMap((issue) => {
    const base = pointerToPath(String(issue.instancePath ?? ''));
    const keys = (issue.params as { keys?: unknown } | undefined)?.keys;
    // An object with unknown keys is one issue; name each key at its own path.
    if (issue.keyword === 'unrecognized_keys' && Array.isArray(keys) && keys.length > 0) {
      return keys.map((key) => ({
        path: named(base ? `${base}.${String(key)}` : String(key)),
        message: 'unknown field',
      }));
    }
    return [{ path: named(base), message: issue.message ?? 'invalid' }];
  });
}

/** What a client is told to wait before retrying while the database is unavailable, in seconds. */
export const DATABASE_RETRY_AFTER_S = 2;

export const databaseUnavailable = (requestId: string) =>
  problemOf('unavailable', 'The database is unavailable or busy; retry the request shortly.', requestId);

/** The one place any error becomes a problem+json answer; nothing leaks a stack trace. */
export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const id = request.id;
  if (error instanceof AppError) {
    const { errors, headers, ...rest } = error.extra;
    return sendProblem(
      reply,
      problemOf(error.code, error.detail, id, { ...rest, ...(errors ? { errors } : {}) }),
      headers,
    );
  }
  if (hasZodFastifySchemaValidationErrors(error) || error.validation) {
    const errors = validationErrors(error);
    const detail = invalidDetail(error.validationContext ?? 'request', errors);
    return sendProblem(reply, problemOf('validation_failed', detail, id, { errors }));
  }
  if (isResponseSerializationError(error)) {
    request.log.error({ err: error }, 'response did not match its schema');
    return sendProblem(reply, problemOf('internal', 'The server produced an invalid response.', id));
  }
  const badJson =
    error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    (error instanceof SyntaxError && (error as { statusCode?: number }).statusCode === 400);
  if (badJson) {
    return sendProblem(reply, problemOf('malformed_json', 'The request body is not valid JSON.', id));
  }
  const status = error.statusCode ?? 500;
  const edge = edgeProblem(status, id);
  if (edge) return sendProblem(reply, edge);
  if (status >= 400 && status < 500) {
    return sendProblem(reply, problemOf('bad_request', error.message, id));
  }
  if (isDatabaseUnavailable(error)) {
    // Transient: the database is down, restarting, or a statement ran past DB_STATEMENT_TIMEOUT_MS.
    // The driver's message (hosts, ports) goes to the log only.
    request.log.warn({ err: error }, 'database unavailable');
    return sendProblem(reply, databaseUnavailable(id), { 'retry-after': String(DATABASE_RETRY_AFTER_S) });
  }
  request.log.error({ err: error }, 'unhandled error');
  return sendProblem(reply, problemOf('internal', 'An unexpected error occurred.', id));
}
