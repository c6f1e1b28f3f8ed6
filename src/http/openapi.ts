import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { IdempotencyHeaders } from './idempotency.ts';
import { problemJsonSchema } from './problem.ts';

/**
 * The OpenAPI document the service serves at /openapi.json (issue 33): OpenAPI 3.1, its schemas the
 * JSON Schema 2020-12 zod emits, made from what the routes declare where they are registered. A
 * route declares its `operationId`, `summary`, `tags` and zod schemas; this module adds what holds
 * for routes by kind (access, problems, headers every route of a kind sends) so that no route repeats
 * it, and tidies the whole (shared components, no unused one). docs/openapi.md says how to read it.
 */

export const OPENAPI_VERSION = '3.1.0';

/** Every tag an operation may carry, with what it groups (the test of the document checks each is used and declared). */
export const TAGS = [
  {
    name: 'accounts',
    description: 'Bootstrap an organization and log in: the two ways to get a first API key.',
  },
  { name: 'keys', description: "API keys and the organization's users." },
  {
    name: 'credits',
    description: "The organization's credit ledger: grants, reservations, charges and refunds.",
  },
  { name: 'tables', description: 'Research tables: named collections of rows and columns.' },
  {
    name: 'columns',
    description:
      'Columns of a table: their data type, and for enrichment columns the provider config that fills them.',
  },
  { name: 'rows', description: 'Rows of a table: insert, upsert, query, patch and delete their cells.' },
  {
    name: 'runs',
    description: 'Column runs: a column filled over the rows it selects, charged in credits per cell.',
  },
  {
    name: 'secrets',
    description: 'Workspace secrets that column configs name; values are never shown again.',
  },
  { name: 'prompts', description: 'Versioned prompt templates that llm columns and email steps use.' },
  { name: 'leads', description: 'Leads: people, merged when two records are the same person.' },
  {
    name: 'sequences',
    description: 'Outreach sequences, their enrollments and the sender accounts that send them.',
  },
  {
    name: 'tasks',
    description: 'Tasks for members: calls, emails and to-dos, alone or made by sequence steps.',
  },
  {
    name: 'webhooks',
    description:
      'Webhook subscriptions, their delivery history and the event catalogue; the messages themselves are ' +
      "the document's `webhooks`.",
  },
  { name: 'search', description: 'Web, news, company and people search through the configured providers.' },
  {
    name: 'linkedin',
    description: 'LinkedIn search, profiles and posts, and the sender accounts’ daily limits.',
  },
  { name: 'content sync', description: 'Pull published articles from the content API into the blog.' },
  { name: 'blog', description: 'The public blog: pages, feed and sitemap, in HTML and XML.' },
  { name: 'health', description: 'Liveness and readiness probes.' },
  { name: 'operations', description: 'Metrics for the operator.' },
] as const;

export type TagName = (typeof TAGS)[number]['name'];

/** The response headers the service sends, each described once. */
export const RESPONSE_HEADERS = {
  Location: {
    description:
      'The URL (a path on this server) of what the request made: the new resource, or the run started',
    type: 'string',
  },
  ETag: {
    description:
      "The resource's version. Send it back in If-Match to change the resource only if nobody has since " +
      '(a 412 otherwise); on a page, in If-None-Match to get a 304 while the copy you hold is current.',
    type: 'string',
  },
  'Last-Modified': { description: 'When the page last changed (for If-Modified-Since)', type: 'string' },
  'Cache-Control': {
    description:
      'Whether and how long a cache may keep the answer: `no-store` on every answer that holds or names a secret',
    type: 'string',
  },
  'Retry-After': {
    description: 'Seconds to wait before sending the request again (a 429 rate limit, a 503 unavailable)',
    type: 'string',
    pattern: '^[0-9]+$',
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this is the stored answer of an earlier request with the same Idempotency-Key: nothing was ' +
      'done again',
    type: 'string',
    enum: ['true'],
  },
  'WWW-Authenticate': {
    description: 'On a 401: how to authenticate (`Bearer realm="api"`)',
    type: 'string',
  },
} as const;

export type ResponseHeader = keyof typeof RESPONSE_HEADERS;

/** A status as a route's `response` names it: a code, or a range such as `4XX`. */
type StatusKey = number | `${1 | 2 | 3 | 4 | 5}XX` | 'default';

declare module 'fastify' {
  interface FastifySchema {
    /**
     * The headers the route sends with a status, for the OpenAPI document (src/http/openapi.ts): those
     * every route of its kind sends need not be named (Location on a 201, Cache-Control on a `noStore`
     * route, Idempotent-Replayed where Idempotency-Key is honoured, Retry-After on problems).
     */
    responseHeaders?: { readonly [status in StatusKey]?: readonly ResponseHeader[] };
    /** What a status means on this route, when more can be said than the status's own meaning. */
    responseDescriptions?: { readonly [status in StatusKey]?: string };
  }
}

/** What a status means, said once for every route; a route may say more (`responseDescriptions`). */
const STATUS_MEANINGS: Record<string, string> = {
  '200': 'OK: the body is the answer',
  '201': 'Created: the body is what was made, and Location its URL',
  '202': 'Accepted: recorded; the work goes on after the answer',
  '204': 'Done: no body',
  '304': 'Not modified: the copy the client holds (If-None-Match, If-Modified-Since) is current; no body',
  '404': 'Not found',
  '502': 'Bad gateway: the outside service this needs failed',
  '503': 'Unavailable',
};

const PROBLEM_CONTENT = {
  'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } },
};

const headerObjects = (names: readonly ResponseHeader[]) =>
  Object.fromEntries([...new Set(names)].sort().map((name) => [name, { ...RESPONSE_HEADERS[name] }]));

interface RouteFacts {
  public: boolean;
  /** Takes no credential at all: a public route without a secret of its own (noKeyOr). */
  anonymous: boolean;
  noStore: boolean;
  idempotent: boolean;
}

function factsOf(route: RouteOptions, schema: FastifySchema): RouteFacts {
  const config = (route.config ?? {}) as { access?: string; noStore?: boolean };
  const headers = schema.headers as { shape?: Record<string, unknown> } | undefined;
  return {
    public: config.access === 'public',
    anonymous: config.access === 'public' && !schema.security?.length,
    noStore: config.noStore === true,
    // Honoured where the route takes src/http/idempotency.ts's header as it is (a route that refuses
    // the key declares a header of its own saying why).
    idempotent: headers?.shape?.['idempotency-key'] === IdempotencyHeaders.shape['idempotency-key'],
  };
}

/** The headers one documented status carries: the route's own, and those of its kind. */
function headersFor(status: string, facts: RouteFacts, declared: readonly ResponseHeader[] = []) {
  const names: ResponseHeader[] = [...declared];
  const success = status.startsWith('2');
  if (status === '201') names.push('Location');
  if (facts.noStore) names.push('Cache-Control');
  if (facts.idempotent && success) names.push('Idempotent-Replayed');
  if (status === '4XX')
    names.push('Retry-After', ...(facts.anonymous ? [] : (['WWW-Authenticate'] as const)));
  if (status === '5XX') names.push('Retry-After');
  return names;
}

type Json = Record<string, unknown>;

/**
 * One documented response, in the form @fastify/swagger writes out as it is: a description that says
 * what the status means, the content by media type (none for a body-less status), the headers.
 */
function responseOf(status: string, given: unknown, facts: RouteFacts, schema: FastifySchema): Json {
  const key = status as StatusKey;
  const headers = headerObjects(headersFor(status, facts, schema.responseHeaders?.[key]));
  const own = given as Json & { content?: Record<string, unknown>; description?: string };
  const description =
    schema.responseDescriptions?.[key] ??
    (own.content ? own.description : undefined) ??
    STATUS_MEANINGS[status] ??
    `Status ${status}`;
  const withHeaders = Object.keys(headers).length > 0 ? { headers } : {};
  // `content: {}` (a 204, a 304) or a `null` body: no content at all.
  const bodiless =
    (own.content && Object.keys(own.content).length === 0) || own.type === 'null' || status === '204';
  if (bodiless) return { type: 'null', description, ...withHeaders };
  const content = own.content ?? { 'application/json': { schema: given } };
  return { description, content, ...withHeaders };
}

const problemResponse = (description: string, status: string, facts: RouteFacts) => ({
  description,
  content: PROBLEM_CONTENT,
  headers: headerObjects(headersFor(status, facts)),
});

/**
 * The transform of each route: zod to JSON Schema (fastify-type-provider-zod), then what holds by
 * kind: a public route needs no key (`security: []`), every route answers its refusals and failures
 * as problems, and each response is described with its headers.
 */
const transformRoute: NonNullable<FastifyDynamicSwaggerOptions['transform']> = (data) => {
  const out = jsonSchemaTransform(data as Parameters<typeof jsonSchemaTransform>[0]);
  const schema = (out.schema ?? {}) as FastifySchema & { hide?: boolean; response?: Json };
  if (schema.hide) return out;
  const facts = factsOf(data.route, data.schema ?? {});
  const { responseHeaders: _h, responseDescriptions: _d, ...rest } = schema;
  const response: Json = {};
  for (const [status, given] of Object.entries(schema.response ?? {}))
    response[status] = responseOf(status.toUpperCase(), given, facts, data.schema ?? {});
  response['4XX'] ??= problemResponse('Refused: a problem naming why (docs/errors.md)', '4XX', facts);
  response['5XX'] ??= problemResponse('The service failed or is unavailable: a problem', '5XX', facts);
  return {
    ...out,
    schema: {
      ...rest,
      ...(facts.public && !rest.security ? { security: [] } : {}),
      response,
    },
  };
};

/** The document's own parts: who serves it, its tags and security schemes. */
function documentBase(siteUrl: string) {
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'stk service',
      version: '0.1.0',
      contact: { name: 'stk service', url: siteUrl },
      description:
        'The developer API for research tables (tables, columns, rows, runs, leads, sequences, tasks, ' +
        'webhooks, search) and the public blog with its content sync. Errors are RFC 9457 problems ' +
        '(`application/problem+json`) whose `code` docs/errors.md lists. Operation ids are stable: ' +
        'generated clients and agent tools take their names from them.',
    },
    servers: [{ url: siteUrl.replace(/\/+$/, ''), description: 'This service (its SITE_URL)' }],
    tags: TAGS.map((t) => ({ ...t })),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `stk_{key_id}.{secret}`' },
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'The same API key, in X-API-Key',
        },
        cronSecret: {
          type: 'http',
          scheme: 'bearer',
          description: 'CRON_SECRET, for a full content sync (no API key)',
        },
        metricsToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'METRICS_TOKEN, when the service sets one',
        },
      },
    },
  } as const;
}

/**
 * The `security` of a public route that takes a secret of its own when one is sent: none, or that
 * secret (a scheme of documentBase: `cronSecret`, `metricsToken`).
 */
export const noKeyOr = (scheme: 'cronSecret' | 'metricsToken'): FastifySchema['security'] => [
  {},
  { [scheme]: [] },
];

/** What route modules add to the document beyond their routes (the webhooks a feature sends). */
export interface DocumentExtras {
  webhooks: Record<string, Json>;
  /** Component schemas the webhooks name. */
  schemas: Record<string, Json>;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Parts of the OpenAPI document routes cannot declare on themselves: see describeWebhooks. */
    openapiExtras: DocumentExtras;
  }
}

/**
 * Adds path items to the document's `webhooks` (OAS 3.1): the messages the service sends to
 * subscribers, by event type. Called by the feature that owns the catalogue while its routes register.
 */
export function describeWebhooks(app: FastifyInstance, described: Partial<DocumentExtras>): void {
  Object.assign(app.openapiExtras.webhooks, described.webhooks);
  Object.assign(app.openapiExtras.schemas, described.schemas);
}

/** Every `$ref` to a component schema in a part of the document. */
function refsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) refsIn(v, found);
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string' && v.startsWith(SCHEMAS))
        found.add(v.slice(SCHEMAS.length));
      else refsIn(v, found);
    }
  }
  return found;
}

const SCHEMAS = '#/components/schemas/';

/** A copy with every reference renamed by `rename` (names it does not know stay). */
function renameRefs(value: unknown, rename: ReadonlyMap<string, string>): unknown {
  if (Array.isArray(value)) return value.map((v) => renameRefs(v, rename));
  if (!value || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === '$ref' && typeof v === 'string' && v.startsWith(SCHEMAS)) {
      const name = v.slice(SCHEMAS.length);
      out[key] = `${SCHEMAS}${rename.get(name) ?? name}`;
    } else out[key] = renameRefs(v, rename);
  }
  return out;
}

const INPUT = /Input$/;

/**
 * fastify-type-provider-zod writes each registered schema twice: as requests send it (`XInput`) and
 * as the service answers with it (`X`). Where the two say the same (most: no default, no transform),
 * `XInput` goes and its references name `X`; twins that differ (a field with a default may be left
 * out of a request) stay, each saying why. Found as a fixpoint: a twin is the same as its base when
 * they are equal with every twin still assumed the same as its base.
 */
function mergeInputTwins(schemas: Record<string, unknown>): Map<string, string> {
  const same = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    const base = name.replace(INPUT, '');
    if (INPUT.test(name) && base in schemas) same.set(name, base);
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const [twin, base] of same) {
      const a = JSON.stringify(renameRefs(schemas[twin], same));
      const b = JSON.stringify(renameRefs(schemas[base], same));
      if (a !== b) {
        same.delete(twin);
        changed = true;
      }
    }
  }
  return same;
}

function explainTwin(schema: unknown, base: string): unknown {
  const s = schema as Json;
  const why =
    `${base} as a request sends it: a field with a default may be left out, and values are taken in the ` +
    `forms the service accepts. ${base} is the same as the service answers with it, every field present.`;
  return { ...s, description: s.description ? `${why} ${s.description}` : why };
}

/**
 * A property that may hold no value (zod's `never`, or `undefined` where the config has no provider)
 * is written `false`, JSON Schema 2020-12's schema that nothing matches: zod writes `{ not: {} }`, which
 * generators read as "anything" where `false` is typed `never`.
 */
function noValueAsFalse(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(noValueAsFalse);
  if (!value || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, v] of Object.entries(value)) {
    if (key === 'properties' && v && typeof v === 'object')
      out[key] = Object.fromEntries(
        Object.entries(v).map(([name, schema]) => [
          name,
          admitsNothing(schema) ? false : noValueAsFalse(schema),
        ]),
      );
    else out[key] = noValueAsFalse(v);
  }
  return out;
}

/** `{ not: {} }`, with at most a description and zod's `type: 'null'` of an output `undefined` beside it. */
function admitsNothing(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false;
  const { not, description: _d, type, ...rest } = schema as Json;
  const empty = not !== null && typeof not === 'object' && Object.keys(not as object).length === 0;
  return empty && (type === undefined || type === 'null') && Object.keys(rest).length === 0;
}

/** The components no part of the document reaches (from its paths and webhooks), dropped. */
function reachable(doc: Json, schemas: Record<string, unknown>): Set<string> {
  const seen = new Set<string>();
  const queue = [...refsIn(doc.paths), ...refsIn(doc.webhooks)];
  while (queue.length > 0) {
    const name = queue.pop() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    queue.push(...refsIn(schemas[name]));
  }
  return seen;
}

/** The whole document, once its paths are written: shared components, the webhooks, nothing unused. */
function transformDocument(
  extras: DocumentExtras,
): NonNullable<FastifyDynamicSwaggerOptions['transformObject']> {
  return (input) => {
    const doc = jsonSchemaTransformObject(input) as unknown as Json & {
      components?: Json & { schemas?: Record<string, unknown> };
    };
    const withExtras = noValueAsFalse({
      ...doc,
      ...(Object.keys(extras.webhooks).length > 0 ? { webhooks: extras.webhooks } : {}),
    }) as Json;
    const all = noValueAsFalse({
      ...doc.components?.schemas,
      ...extras.schemas,
      Problem: problemJsonSchema,
    }) as Record<string, unknown>;
    const merged = mergeInputTwins(all);
    const renamed = renameRefs(withExtras, merged) as Json;
    const schemas = Object.fromEntries(
      Object.entries(all)
        .filter(([name]) => !merged.has(name))
        .map(([name, schema]) => [name, renameRefs(schema, merged)]),
    );
    const used = reachable(renamed, schemas);
    // A twin whose base nothing uses takes the base's name: `Input` is left only where both forms are used.
    const lone = new Map(
      [...used]
        .filter((name) => INPUT.test(name) && !used.has(name.replace(INPUT, '')))
        .map((name) => [name, name.replace(INPUT, '')]),
    );
    const final = renameRefs(renamed, lone) as Json;
    const kept = Object.fromEntries(
      [...used]
        .map((name) => [lone.get(name) ?? name, renameRefs(schemas[name], lone)] as const)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, schema]) =>
          INPUT.test(name) ? [name, explainTwin(schema, name.replace(INPUT, ''))] : [name, schema],
        ),
    );
    return {
      ...final,
      components: { ...doc.components, schemas: kept },
    } as ReturnType<NonNullable<FastifyDynamicSwaggerOptions['transformObject']>>;
  };
}

/**
 * @fastify/swagger's options for the app: the document's base, and the transforms above. Decorates
 * the app with the extras its routes may add to (describeWebhooks).
 */
export function openapiOptions(app: FastifyInstance, siteUrl: string): FastifyDynamicSwaggerOptions {
  const extras: DocumentExtras = { webhooks: {}, schemas: {} };
  app.decorate('openapiExtras', extras);
  return {
    openapi: documentBase(siteUrl) as unknown as FastifyDynamicSwaggerOptions['openapi'],
    transform: transformRoute,
    transformObject: transformDocument(extras),
  };
}
