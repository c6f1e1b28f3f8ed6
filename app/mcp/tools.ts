/**
 * The MCP tools of the service, derived from its OpenAPI document (/openapi.json), never written by
 * hand: one tool per operation an API key may call, named by the operation's `operationId`, its
 * input the operation's path, query and header parameters by name and its JSON body as `body`, its
 * output the schema of its success answer. docs/mcp.md says what is left out and why.
 */

export type Json = Record<string, unknown>;

interface DocParameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Json;
}
interface DocMedia {
  schema?: Json;
}
interface DocResponse {
  description?: string;
  content?: Record<string, DocMedia>;
  headers?: Record<string, unknown>;
}
interface DocOperation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: DocParameter[];
  requestBody?: { required?: boolean; content?: Record<string, DocMedia> };
  responses?: Record<string, DocResponse>;
  security?: Record<string, string[]>[];
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, DocOperation>>;
  components?: { schemas?: Record<string, Json>; securitySchemes?: Record<string, Json> };
}

/** What the API key must hold to call an operation: a scope, or any valid key. */
export type ToolAccess = string;
export const ANY_KEY = 'authenticated';

export interface ToolAnnotations {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** One argument of a tool that is a parameter of its operation. */
export interface ToolParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
}

export interface OperationTool {
  /** The operation's `operationId`. */
  name: string;
  title: string;
  description: string;
  method: string;
  /** As the document writes it: `/api/tables/{tableId}`. */
  path: string;
  access: ToolAccess;
  parameters: ToolParameter[];
  /** The operation takes a JSON body: the tool's `body` argument. */
  body: 'none' | 'optional' | 'required';
  inputSchema: Json & { type: 'object' };
  /** Present when every success answer is a JSON object (MCP's structuredContent must be one). */
  outputSchema?: Json & { type: 'object' };
  annotations: ToolAnnotations;
}

/** An operation of the document that is no tool, and why. */
export interface LeftOut {
  method: string;
  path: string;
  operationId?: string;
  why: string;
}

export interface Catalog {
  tools: OperationTool[];
  byName: ReadonlyMap<string, OperationTool>;
  /** By `METHOD /path` as the document writes it. */
  byRoute: ReadonlyMap<string, OperationTool>;
  leftOut: LeftOut[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
/** The document's security schemes that take the API key (src/http/openapi.ts). */
const KEY_SCHEMES = new Set(['bearer', 'apiKey']);

/**
 * Operations that reach services outside this one when called (the data providers of a column run,
 * the search and LinkedIn providers, a subscriber's webhook URL, the LLM that drafts an email): the
 * document cannot say it of itself, so the paths are named here.
 */
const OPEN_WORLD: readonly RegExp[] = [
  /^\/api\/search\//,
  /^\/api\/linkedin\//,
  /^\/api\/tables\/\{tableId\}\/columns\/\{columnId\}\/run$/,
  /^\/api\/webhooks\/\{id\}\/(test|replay|deliveries\/\{deliveryId\}\/redeliver)$/,
  /^\/api\/tasks\/\{taskId\}\/draft-email$/,
];

/** Why an operation is no tool, or undefined when it is one. */
function leftOutBecause(path: string, op: DocOperation): string | undefined {
  if (path.startsWith('/admin')) return "the operator's side (stk admin), not the API's";
  if (!op.operationId) return 'no operationId: a tool is named by it';
  const security = op.security ?? [];
  const takesKey = security.some((requirement) => Object.keys(requirement).some((s) => KEY_SCHEMES.has(s)));
  if (takesKey) return undefined;
  if (security.length === 0 || security.every((r) => Object.keys(r).length === 0))
    return 'public: it needs no API key (health probes, the blog, signing up and logging in)';
  return 'authenticated by a secret of its own, not an API key (the metrics token, the cron secret of the content sync)';
}

/** The scope an operation requires: its security requirement's scopes, else what its description says. */
export function accessOf(op: DocOperation): ToolAccess {
  for (const requirement of op.security ?? [])
    for (const [scheme, scopes] of Object.entries(requirement))
      if (KEY_SCHEMES.has(scheme) && scopes.length > 0) return scopes[0] as string;
  const scope = /Requires the scope `([^`]+)`/.exec(op.description ?? '')?.[1];
  return scope ?? ANY_KEY;
}

/** A key may call a tool: any valid key, or the key holds the scope. */
export const allows = (scopes: ReadonlySet<string>, access: ToolAccess) =>
  access === ANY_KEY || scopes.has(access);

const REF = '#/components/schemas/';

/**
 * A schema with its component references resolved: each one inlined where it is used, except a
 * reference back into a component being inlined (a recursive schema: FilterObject, RunCondition),
 * which stays a reference into the tool schema's own `$defs`.
 */
export function resolveRefs(schema: Json, components: Record<string, Json>): Json {
  const defs = new Map<string, Json>();
  const pending: string[] = [];
  const walk = (value: unknown, inlining: readonly string[]): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, inlining));
    if (!value || typeof value !== 'object') return value;
    const object = value as Json;
    const ref = object.$ref;
    if (typeof ref === 'string' && ref.startsWith(REF)) {
      const name = ref.slice(REF.length);
      const { $ref: _ref, ...siblings } = object;
      if (inlining.includes(name)) {
        if (!defs.has(name)) {
          defs.set(name, {});
          pending.push(name);
        }
        return { ...(walk(siblings, inlining) as Json), $ref: `#/$defs/${name}` };
      }
      const target = components[name];
      if (!target) throw new Error(`the document has no schema ${name}`);
      return { ...(walk(target, [...inlining, name]) as Json), ...(walk(siblings, inlining) as Json) };
    }
    const out: Json = {};
    for (const [key, v] of Object.entries(object)) out[key] = walk(v, inlining);
    return out;
  };
  const resolved = walk(schema, []) as Json;
  while (pending.length > 0) {
    const name = pending.pop() as string;
    defs.set(name, walk(components[name], [name]) as Json);
  }
  return defs.size === 0 ? resolved : { ...resolved, $defs: Object.fromEntries(defs) };
}

const jsonSchemaOf = (content: Record<string, DocMedia> | undefined) =>
  Object.entries(content ?? {}).find(([type]) => type === 'application/json' || type.endsWith('+json'))?.[1]
    ?.schema;

/** The schema of what the operation answers on success, when every success is a JSON object. */
function outputOf(
  op: DocOperation,
  components: Record<string, Json>,
): (Json & { type: 'object' }) | undefined {
  const successes = Object.entries(op.responses ?? {}).filter(([status]) => /^2\d\d$/.test(status));
  if (successes.length === 0) return undefined;
  const schemas: Json[] = [];
  for (const [, response] of successes) {
    const schema = jsonSchemaOf(response.content);
    if (!schema) return undefined;
    const resolved = resolveRefs(schema, components);
    if (resolved.type !== 'object') return undefined;
    if (!schemas.some((s) => JSON.stringify(s) === JSON.stringify(resolved))) schemas.push(resolved);
  }
  if (schemas.length === 1) return schemas[0] as Json & { type: 'object' };
  // 200 and 201 of an upsert answer different objects: either one.
  return { type: 'object', anyOf: schemas };
}

function inputOf(op: DocOperation, components: Record<string, Json>) {
  const properties: Json = {};
  const required: string[] = [];
  const parameters: ToolParameter[] = [];
  for (const p of op.parameters ?? []) {
    if (p.in !== 'path' && p.in !== 'query' && p.in !== 'header') continue;
    if (p.name in properties) throw new Error(`two parameters named ${p.name}`);
    const schema = resolveRefs(p.schema ?? {}, components);
    properties[p.name] = {
      ...schema,
      ...(p.description ? { description: p.description } : {}),
    };
    const isRequired = p.in === 'path' || p.required === true;
    if (isRequired) required.push(p.name);
    parameters.push({ name: p.name, in: p.in, required: isRequired });
  }
  const bodySchema = jsonSchemaOf(op.requestBody?.content);
  let body: OperationTool['body'] = 'none';
  if (bodySchema) {
    if ('body' in properties) throw new Error('a parameter named body');
    properties.body = { ...resolveRefs(bodySchema, components), description: 'The request body' };
    body = op.requestBody?.required ? 'required' : 'optional';
    if (body === 'required') required.push('body');
  }
  // Recursive schemas' $defs go to the top, where `#/$defs/...` points.
  const defs: Json = {};
  for (const value of Object.values(properties)) {
    const schema = value as Json;
    if (schema.$defs) {
      Object.assign(defs, schema.$defs);
      delete schema.$defs;
    }
  }
  const inputSchema = {
    type: 'object' as const,
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  };
  return { inputSchema, parameters, body };
}

/** A POST route that honours Idempotency-Key says so on its successes (Idempotent-Replayed). */
const honoursIdempotencyKey = (op: DocOperation) =>
  Object.entries(op.responses ?? {}).some(
    ([status, r]) => /^2/.test(status) && Object.keys(r.headers ?? {}).includes('Idempotent-Replayed'),
  );

export function annotationsOf(
  method: string,
  path: string,
  op: DocOperation,
  access: ToolAccess,
): ToolAnnotations {
  const openWorld = OPEN_WORLD.some((pattern) => pattern.test(path));
  const deletes =
    method === 'DELETE' || /\/delete$/.test(path) || /^(delete|revoke)[A-Z]/.test(op.operationId ?? '');
  // A POST that only reads (a query, a render) needs a read scope and reaches nowhere.
  const readOnly = method === 'GET' || (method === 'POST' && access.endsWith(':read') && !openWorld);
  return {
    ...(op.summary ? { title: op.summary } : {}),
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && deletes,
    idempotentHint: readOnly || method === 'PUT' || method === 'DELETE' || honoursIdempotencyKey(op),
    openWorldHint: openWorld,
  };
}

/** Every operation of the document, each a tool or left out with why. */
export function catalogOf(doc: OpenApiDocument): Catalog {
  const components = doc.components?.schemas ?? {};
  const tools: OperationTool[] = [];
  const leftOut: LeftOut[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const METHOD = method.toUpperCase();
      const why = leftOutBecause(path, op);
      if (why) {
        leftOut.push({
          method: METHOD,
          path,
          ...(op.operationId ? { operationId: op.operationId } : {}),
          why,
        });
        continue;
      }
      const access = accessOf(op);
      const { inputSchema, parameters, body } = inputOf(op, components);
      const outputSchema = outputOf(op, components);
      const title = op.summary ?? `${METHOD} ${path}`;
      tools.push({
        name: op.operationId as string,
        title,
        description: [op.summary, op.description, `(${METHOD} ${path})`].filter(Boolean).join('\n\n'),
        method: METHOD,
        path,
        access,
        parameters,
        body,
        inputSchema,
        ...(outputSchema ? { outputSchema } : {}),
        annotations: annotationsOf(METHOD, path, op, access),
      });
    }
  }
  tools.sort((a, b) => a.name.localeCompare(b.name));
  return {
    tools,
    byName: new Map(tools.map((t) => [t.name, t])),
    byRoute: new Map(tools.map((t) => [`${t.method} ${t.path}`, t])),
    leftOut,
  };
}
