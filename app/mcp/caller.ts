import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Json, OperationTool } from './tools.ts';

/** One HTTP request to the service, as a tool call makes it. */
export interface ApiRequest {
  method: string;
  /** The path with its parameters filled in and its query string: `/api/tables/tbl_1/rows?limit=5`. */
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface ApiAnswer {
  status: number;
  headers: Record<string, string | undefined>;
  /** The parsed JSON body; the text when it is not JSON; undefined when there is none. */
  readonly body: unknown;
  /** The body as it came, when the caller has it: a success's text content, not written again. */
  text?: string;
}

/**
 * An answer whose body is parsed when first read: a success that goes out as it came (resultOf,
 * with RAW_STRUCTURED) is never parsed at all.
 */
export function lazyAnswer(
  status: number,
  headers: Record<string, string | undefined>,
  text: string,
): ApiAnswer {
  let parsed: { body: unknown } | undefined;
  return {
    status,
    headers,
    text,
    get body() {
      parsed ??= { body: parseBody(text) };
      return parsed.body;
    },
  };
}

/**
 * On a tool result whose structuredContent is the route's JSON object body as it came: that text, so
 * that POST /mcp writes it into its answer as is rather than parsing it and writing it again. The
 * structuredContent itself is then parsed only if something reads it (the SDK's servers do).
 */
export const RAW_STRUCTURED: unique symbol = Symbol('the JSON text of structuredContent');
export type RawResult = CallToolResult & { [RAW_STRUCTURED]?: string };

/**
 * How a tool call reaches the route it names, with the caller's API key: in the service, fastify's
 * inject (app/mcp/http-route.ts); in `stk mcp`, HTTP to the service (fetchCaller).
 */
export type Caller = (request: ApiRequest) => Promise<ApiAnswer>;

export const parseBody = (text: string): unknown => {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** A caller over HTTP with fetch: `stk mcp` and the benchmark. */
export function fetchCaller(baseUrl: string, apiKey: string): Caller {
  const base = baseUrl.replace(/\/?$/, '/');
  return async ({ method, url, headers, body }) => {
    const response = await fetch(new URL(url.replace(/^\//, ''), base), {
      method,
      headers: {
        accept: 'application/json, application/problem+json',
        authorization: `Bearer ${apiKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: parseBody(text),
      text,
    };
  };
}

/** A refusal of the tool call itself, before any request: the same problem shape the API answers. */
export interface ToolProblem {
  type?: string;
  title?: string;
  status?: number;
  code: string;
  detail: string;
  errors?: { path: string; message: string }[];
  [key: string]: unknown;
}

const argumentProblem = (errors: { path: string; message: string }[]): ToolProblem => ({
  title: 'Request validation failed',
  status: 400,
  code: 'validation_failed',
  detail: `The tool's arguments are invalid: ${errors.map((e) => `${e.path}: ${e.message}`).join('; ')}`,
  errors,
});

const scalar = (value: unknown): string =>
  typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);

/**
 * The HTTP request a tool call makes: each path, query and header parameter from its argument of the
 * same name, the body from `body`. Arguments the tool does not take are refused here, before the
 * route; everything else the route itself checks (so that its answer is the HTTP API's).
 */
export function requestOf(
  tool: OperationTool,
  args: Json,
): { request: ApiRequest; problem?: undefined } | { request?: undefined; problem: ToolProblem } {
  const known = new Set([...tool.parameters.map((p) => p.name), ...(tool.body === 'none' ? [] : ['body'])]);
  const errors = Object.keys(args)
    .filter((name) => !known.has(name))
    .map((path) => ({ path, message: 'not an argument of this tool' }));
  for (const p of tool.parameters)
    if (p.in === 'path' && (args[p.name] === undefined || args[p.name] === ''))
      errors.push({ path: p.name, message: 'required' });
  if (tool.body === 'required' && args.body === undefined) errors.push({ path: 'body', message: 'required' });
  if (errors.length > 0) return { problem: argumentProblem(errors) };
  let path = tool.path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const p of tool.parameters) {
    const value = args[p.name];
    if (value === undefined || value === null) continue;
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(scalar(value)));
    else if (p.in === 'query') {
      for (const v of Array.isArray(value) ? value : [value]) query.append(p.name, scalar(v));
    } else headers[p.name] = scalar(value);
  }
  const search = query.toString();
  return {
    request: {
      method: tool.method,
      url: search ? `${path}?${search}` : path,
      headers,
      ...(args.body === undefined ? {} : { body: args.body }),
    },
  };
}

/** A route's validation path (`params.tableId`, `querystring.limit`, `rows[0].cells`) as the tool's argument. */
export function argumentPath(tool: OperationTool, path: string): string {
  const named = /^(params|querystring|headers)\.(.+)$/.exec(path);
  if (named) return named[2] as string;
  if (tool.body === 'none') return path;
  return path === '' || path === 'body' ? 'body' : path.startsWith('body.') ? path : `body.${path}`;
}

const isProblem = (body: unknown): body is ToolProblem =>
  !!body && typeof body === 'object' && typeof (body as ToolProblem).code === 'string';

/**
 * A tool error carrying a problem: its text is the problem as JSON (what an agent reads), and
 * `_meta.problem` the same object. Not `structuredContent`: a client checks that against the tool's
 * output schema, which describes the success.
 */
export function problemResult(problem: ToolProblem): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(problem) }], _meta: { problem } };
}

/**
 * The tool result of the route's answer: a success is its body as `structuredContent` (and as JSON
 * text), with the status and Location in `_meta`; a refusal is a tool error carrying the problem
 * (problemResult), its `errors[].path` naming the tool's arguments.
 */
export function resultOf(tool: OperationTool, answer: ApiAnswer): CallToolResult {
  const meta = {
    httpStatus: answer.status,
    ...(answer.headers.location ? { location: answer.headers.location } : {}),
  };
  if (answer.status >= 400) {
    const problem: ToolProblem = isProblem(answer.body)
      ? {
          ...answer.body,
          ...(answer.body.errors
            ? { errors: answer.body.errors.map((e) => ({ ...e, path: argumentPath(tool, e.path) })) }
            : {}),
        }
      : {
          status: answer.status,
          code: answer.status >= 500 ? 'internal' : 'bad_request',
          detail: typeof answer.body === 'string' ? answer.body.slice(0, 500) : `HTTP ${answer.status}`,
        };
    const result = problemResult(problem);
    return { ...result, _meta: { ...meta, ...result._meta } };
  }
  // The route's JSON object as it came: its text is the text content, and the structuredContent.
  const raw = answer.text;
  if (
    tool.outputSchema &&
    raw?.startsWith('{') &&
    /^application\/([\w.-]+\+)?json\b/.test(answer.headers['content-type'] ?? '')
  ) {
    const result: RawResult = { content: [{ type: 'text', text: raw as string }], _meta: meta };
    result[RAW_STRUCTURED] = raw;
    Object.defineProperty(result, 'structuredContent', {
      get: () => answer.body,
      enumerable: true,
      configurable: true,
    });
    return result;
  }
  const text =
    answer.body === undefined ? `Done (HTTP ${answer.status}, no body)` : JSON.stringify(answer.body);
  const structured =
    tool.outputSchema && answer.body && typeof answer.body === 'object' && !Array.isArray(answer.body)
      ? { structuredContent: answer.body as Json }
      : {};
  return { content: [{ type: 'text', text }], ...structured, _meta: meta };
}
