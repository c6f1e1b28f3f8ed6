import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { OpenAPIBackend } from 'openapi-backend';
import { documentPath } from './fuzz/operations.ts';

/**
 * Issue 20, item 3: every response an in-process test app sends is checked against that app's own
 * /openapi.json: the status must be documented for the operation (exactly, as `4XX`/`5XX`, or as
 * `default`), the content type must be one the document gives for that status (or none when it
 * gives none), and a JSON body must match the schema, validated by openapi-backend. Violations are
 * collected here; test/run.ts prints them with the test file that produced them and fails the run.
 */

export interface Exchange {
  method: string;
  /** The URL actually requested (for the report). */
  url: string;
  /** fastify's route pattern (`/api/tables/:tableId`); undefined when no route matched. */
  route?: string;
  status: number;
  /** Without parameters (`charset`). */
  contentType?: string;
  /** The body as sent when it is text; undefined for a stream or no body. */
  body?: string;
  /** The response headers, by lower-case name. */
  headers?: Record<string, unknown>;
}

interface Media {
  schema?: unknown;
}
interface DocResponse {
  content?: Record<string, Media>;
  headers?: Record<string, unknown>;
}
interface DocOperation {
  operationId?: string;
  responses?: Record<string, DocResponse>;
}
export interface Document {
  paths: Record<string, Record<string, DocOperation>>;
  components?: { schemas?: Record<string, unknown> };
}

/**
 * Routes answered outside the contract, each with why. The documentation UI's files (`/docs`,
 * `/docs/*`) come from @fastify/swagger-ui: scripts, styles and images whose list is the plugin's,
 * not the API's. The document does not list itself (test/integration/kernel/http-kernel.test.ts
 * checks it is an OpenAPI 3 document).
 */
export const UNDESCRIBED_ROUTES: Record<string, string> = {
  '/openapi.json': 'the document itself, checked as an OpenAPI 3 document by the HTTP kernel suite',
  '/docs': 'the documentation UI (a redirect to its page), served by @fastify/swagger-ui',
  '/docs/*': "the documentation UI's static files, served by @fastify/swagger-ui",
  '/docs/json': 'the document itself as the documentation UI loads it (the same as /openapi.json)',
  '/docs/yaml': 'the document itself in YAML, from @fastify/swagger-ui',
  '/mcp': 'the MCP endpoint: JSON-RPC messages and SSE streams the MCP specification describes (docs/mcp.md)',
};

/**
 * Route prefixes answered outside the contract, each with why: the operator console's pages, forms,
 * files and live stream are for people in a browser with a session, not the developer API (issue 36).
 */
export const UNDESCRIBED_PREFIXES: Record<string, string> = {
  '/admin':
    'the operator console: HTML pages, forms, static files and Server-Sent Events (docs/operations.md)',
};

const undescribed = (route: string) =>
  route in UNDESCRIBED_ROUTES ||
  Object.keys(UNDESCRIBED_PREFIXES).some((prefix) => route === prefix || route.startsWith(`${prefix}/`));

// Not strict: the document's schemas carry OpenAPI keywords (`example`, `x-value-rules`) ajv does not know.
const AJV_OPTIONS = { strict: false, allErrors: true };
const withFormats = (ajv: Ajv) => {
  addFormats.default(ajv);
  return ajv;
};
const newAjv = () => withFormats(new Ajv(AJV_OPTIONS));
const ajvErrors = (errors: ErrorObject[] | null | undefined) =>
  (errors ?? [])
    .slice(0, 4)
    .map((e) => `${e.instancePath || '/'} ${e.message}`)
    .join('; ');

const isJson = (type: string) => type === 'application/json' || type.endsWith('+json');
const statusKey = (responses: Record<string, DocResponse>, status: number) =>
  [String(status), `${Math.floor(status / 100)}XX`, 'default'].find((key) => key in responses);

/**
 * The validator's copy of the document: each operation named `METHOD /path` (what a response is
 * matched by here), and a `+json` body (problem+json) under `application/json`, the one media type
 * openapi-backend validates. Content types themselves are checked against the document as it is.
 */
function validatorCopy(doc: Document): Document {
  const copy = structuredClone(doc);
  for (const [path, item] of Object.entries(copy.paths))
    for (const [method, op] of Object.entries(item)) {
      op.operationId = `${method.toUpperCase()} ${path}`;
      for (const response of Object.values(op.responses ?? {})) {
        const json = Object.entries(response.content ?? {}).find(([type]) => isJson(type));
        if (json && response.content && !response.content['application/json'])
          response.content['application/json'] = json[1];
      }
    }
  return copy;
}

/**
 * The response headers a client acts on (issue 33): each one sent must be declared for the status,
 * so that a generated client knows of it. Others (the request id, content negotiation, security
 * policies of pages, rate limit counters) are the transport's.
 */
const DECLARED_HEADERS = [
  'location',
  'etag',
  'last-modified',
  'cache-control',
  'retry-after',
  'idempotent-replayed',
  'www-authenticate',
];

function undeclaredHeaders(sent: Record<string, unknown> = {}, response: DocResponse | undefined): string[] {
  const declared = new Set(Object.keys(response?.headers ?? {}).map((name) => name.toLowerCase()));
  return DECLARED_HEADERS.filter((name) => sent[name] !== undefined && !declared.has(name));
}

export class ContractChecker {
  private readonly api: OpenAPIBackend;

  constructor(private readonly doc: Document) {
    this.api = new OpenAPIBackend({
      definition: validatorCopy(doc) as never,
      // Skips openapi-backend's own OpenAPI 3.0 check of the document: ours is 3.1.
      quick: true,
      strict: true,
      ajvOpts: AJV_OPTIONS,
      customizeAjv: withFormats,
    });
    void this.api.init();
  }

  /** What is wrong with one response, if anything. */
  check(exchange: Exchange): string | undefined {
    const { route, status, contentType, body } = exchange;
    if (route === undefined) return this.checkUnrouted(exchange);
    if (undescribed(route)) return undefined;
    const path = documentPath(route);
    // HEAD is fastify's twin of each GET: the GET's statuses and headers, no body.
    const method = exchange.method === 'HEAD' ? 'get' : exchange.method.toLowerCase();
    const op = this.doc.paths[path]?.[method];
    if (!op) return `${method.toUpperCase()} ${path} is not in the document`;
    const responses = op.responses ?? {};
    const key = statusKey(responses, status);
    if (!key) return `status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`;
    const undeclared = undeclaredHeaders(exchange.headers, responses[key]);
    if (undeclared.length > 0) return `${undeclared.join(', ')} sent but not declared for ${key}`;
    // No body goes out with a 204 or a 304, whatever the handler passed (fastify drops it).
    if (status === 204 || status === 304) return undefined;
    const content = responses[key]?.content ?? {};
    const types = Object.keys(content);
    const empty = body === undefined || body === '';
    if (!contentType) {
      if (empty || exchange.method === 'HEAD') return undefined;
      return `a ${status} body without a content type`;
    }
    if (!types.includes(contentType)) {
      if (types.length === 0 && empty) return undefined;
      return `content type ${contentType} is not documented for ${key} (documented: ${types.join(', ') || 'none'})`;
    }
    if (exchange.method === 'HEAD' || !isJson(contentType) || body === undefined) return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return `a ${contentType} body that is not JSON`;
    }
    const result = this.api.validator.validateResponse(parsed, `${method.toUpperCase()} ${path}`, status);
    if (result.valid) return undefined;
    return `body does not match the ${key} schema: ${ajvErrors(result.errors)}`;
  }

  /**
   * A request no route took (route_not_found, or refused at the edge before routing): no operation
   * describes it, so it must be a problem as the document's problem schema describes one.
   */
  private checkUnrouted({ status, contentType, body }: Exchange): string | undefined {
    if (status < 400) return `a ${status} for a request no route took`;
    if (contentType !== 'application/problem+json')
      return `a ${status} of ${contentType} that is not a problem`;
    const schema = this.doc.components?.schemas?.Problem;
    if (!schema) return 'the document has no Problem schema';
    this.validateProblem ??= newAjv().compile(schema as object);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body ?? '');
    } catch {
      return `a ${status} problem whose body is not JSON`;
    }
    if (this.validateProblem(parsed)) return undefined;
    return `a ${status} problem not matching the Problem schema: ${ajvErrors(this.validateProblem.errors)}`;
  }

  private validateProblem?: ValidateFunction;
}

/** One checker per distinct document: test apps of the same features share it. */
const checkers = new Map<string, ContractChecker>();

export function checkerOf(app: FastifyInstance): ContractChecker {
  const doc = (app as unknown as { swagger(): Document }).swagger();
  const key = JSON.stringify(doc);
  let checker = checkers.get(key);
  if (!checker) {
    checker = new ContractChecker(doc);
    checkers.set(key, checker);
  }
  return checker;
}

export interface Violation {
  /** The test file running when it happened (test/run.ts tells), else `(unknown)`. */
  source: string;
  exchange: Exchange;
  reason: string;
}

/** What the run has seen so far: test/run.ts reads it at the end. */
export const contract = {
  currentFile: '(unknown)',
  checked: 0,
  violations: [] as Violation[],
};

/** Test apps call this on every response (test/support/app.ts). Never throws into the app. */
export function checkResponse(app: FastifyInstance, exchange: Exchange): void {
  contract.checked++;
  let reason: string | undefined;
  try {
    reason = checkerOf(app).check(exchange);
  } catch (error) {
    reason = `the checker failed: ${(error as Error).message}`;
  }
  if (reason) contract.violations.push({ source: contract.currentFile, exchange, reason });
}
