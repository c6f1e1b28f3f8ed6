import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  ErrorCode,
  JSONRPCMessageSchema,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule, ZodApp } from '../../src/http/routes.ts';
import { type Caller, lazyAnswer, parseBody, RAW_STRUCTURED, type RawResult } from './caller.ts';
import { createMcpServer, type ToolCallExtra, toolCallsOf, WATCH_RUN } from './server.ts';
import { type McpSession, SessionStore } from './sessions.ts';
import { type Catalog, catalogOf, type OpenApiDocument } from './tools.ts';

/**
 * The MCP endpoint of the service, Streamable HTTP as the specification's current version has it:
 * POST /mcp carries the client's JSON-RPC messages (the answer a JSON body or an SSE stream), GET
 * opens the server-to-client stream, DELETE ends the session (Mcp-Session-Id). Authenticated by the
 * API key as every route is (Bearer or X-API-Key); the session belongs to that key.
 *
 * Each request gets a server of its own for its key (app/mcp/server.ts) over a stateless SDK
 * transport, and the session is checked here, against `mcp_sessions` (app/mcp/sessions.ts): so any
 * process serves any session. The one exception is the commonest message, a plain tools/call
 * (plainToolCall): answered here through the same tool function as the server's, since building a
 * server and a transport for it took about as much CPU as the route's own request. A tool call is
 * fastify's inject of the route it names, with the caller's key and address: the HTTP API's
 * validation, scopes, isolation, idempotency and problems.
 * What the transport refuses is answered as the API answers refusals, a problem (docs/errors.md).
 */

/** The bodies of /mcp may carry a route's whole body (1 MiB) inside their JSON-RPC envelope. */
const BODY_LIMIT = 1024 * 1024 + 64 * 1024;
const SESSION_HEADER = 'mcp-session-id';

/** fastify's inject as a Caller: the route it names, with the key and address of the MCP request. */
function injectCaller(app: ZodApp, request: FastifyRequest): Caller {
  const credentials: Record<string, string> = {};
  for (const name of ['authorization', 'x-api-key'] as const) {
    const value = request.headers[name];
    if (typeof value === 'string') credentials[name] = value;
  }
  return async ({ method, url, headers, body }) => {
    const answer = await app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...headers,
        ...credentials,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      remoteAddress: request.ip,
    });
    return lazyAnswer(answer.statusCode, answer.headers as Record<string, string | undefined>, answer.body);
  };
}

const header = (request: FastifyRequest, name: string) => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
};

type Message = {
  jsonrpc?: unknown;
  method?: unknown;
  id?: unknown;
  params?: { _meta?: { progressToken?: unknown } };
};

/** The body's messages, as far as this route needs to know them; the SDK's transport checks them whole. */
function messagesOf(body: unknown): Message[] {
  const list = Array.isArray(body) ? body : [body];
  if (
    list.length === 0 ||
    list.length > 100 ||
    list.some((m) => !m || typeof m !== 'object' || Array.isArray(m))
  )
    throw new AppError('validation_failed', 'The body is one JSON-RPC message or a batch of 1 to 100.', {
      errors: [{ path: '', message: 'one JSON-RPC 2.0 message (an object), or an array of 1 to 100' }],
    });
  // The envelope's first word; the rest of a malformed message is the SDK's to find (invalidMessages).
  if (list.some((m) => (m as { jsonrpc?: unknown }).jsonrpc !== '2.0')) throw invalidMessages(body);
  return list as Message[];
}

/** What the SDK's message schema finds wrong with a body it refused, by path. */
function invalidMessages(body: unknown): AppError {
  const list = Array.isArray(body) ? body : [body];
  const errors = list.flatMap((message, index) => {
    const parsed = JSONRPCMessageSchema.safeParse(message);
    if (parsed.success) return [];
    const at = Array.isArray(body) ? `[${index}]` : '';
    return parsed.error.issues.slice(0, 5).map((issue) => ({
      path: `${at}${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`.replace(
        /^\./,
        '',
      ),
      message: issue.message,
    }));
  });
  return new AppError('validation_failed', 'The body is not a JSON-RPC 2.0 message.', {
    errors: errors.length > 0 ? errors : [{ path: '', message: 'not a JSON-RPC 2.0 message' }],
  });
}

/**
 * A stream only when the answer has something to stream: a call that asks for progress, or a client
 * that takes no JSON. Otherwise one JSON body, which costs less to make and to read.
 */
const wantsStream = (messages: Message[], accept: string) =>
  !accept.includes('application/json') ||
  (accept.includes('text/event-stream') &&
    messages.some((m) => m.params?._meta?.progressToken !== undefined));

function protocolVersionOf(request: FastifyRequest): string {
  const version = header(request, 'mcp-protocol-version') ?? DEFAULT_NEGOTIATED_PROTOCOL_VERSION;
  if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version))
    throw new AppError(
      'bad_request',
      `MCP-Protocol-Version ${version} is not supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} are.`,
      { errors: [{ path: 'headers.mcp-protocol-version', message: 'not a supported version' }] },
    );
  return version;
}

const sessionGone = () =>
  new AppError(
    'not_found',
    'No such MCP session: it ended, expired or belongs to another key. Initialize a new one.',
  );

const messageOf = (text: string) =>
  (parseBody(text) as { error?: { message?: string } } | undefined)?.error?.message;

/** A refusal of the SDK's transport (the checks above leave it few), as the problem of its status. */
function transportRefusal(status: number, message: string): AppError {
  if (status === 404) return new AppError('not_found', message);
  if (status === 413) return new AppError('payload_too_large', message);
  if (status === 415) return new AppError('unsupported_media_type', message);
  return new AppError('bad_request', message);
}

/**
 * A tools/call that POST /mcp answers itself, without an SDK server and transport of its own: one
 * request (no batch) with an id, that asks for no progress and no task, of a tool that is no
 * watchRun, in a JSON body answered as JSON. Anything else goes to the SDK's server, as does a call
 * the SDK's own CallToolRequestSchema refuses (its error is the SDK's).
 */
function plainToolCall(
  messages: Message[],
  request: FastifyRequest,
  stream: boolean,
): { id: string | number; name: string; args: Record<string, unknown> } | undefined {
  const [message] = messages;
  if (messages.length !== 1 || stream || !message || message.method !== 'tools/call') return undefined;
  const { id } = message;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) return undefined;
  if (!/^application\/json\b/i.test(header(request, 'content-type') ?? '')) return undefined;
  const parsed = CallToolRequestSchema.safeParse(message);
  if (!parsed.success) return undefined;
  const { params } = parsed.data;
  if (params._meta?.progressToken !== undefined || params.task !== undefined || params.name === WATCH_RUN)
    return undefined;
  return { id, name: params.name, args: params.arguments ?? {} };
}

/**
 * The JSON-RPC answer of a tool call, as the SDK's server writes it; a structuredContent that is the
 * route's body as it came (RAW_STRUCTURED) is written as that text, not parsed and written again.
 */
function toolAnswer(id: string | number, result: RawResult): string {
  const raw = result[RAW_STRUCTURED];
  if (raw === undefined) return JSON.stringify({ result, jsonrpc: '2.0', id });
  const { content, isError, _meta } = result;
  const rest = JSON.stringify({ content, ...(isError === undefined ? {} : { isError }), _meta });
  return `{"result":${rest.slice(0, -1)},"structuredContent":${raw}},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/** What the SDK's server checks of a result: a raw structuredContent stands as an object, unread. */
const shapeOf = (result: RawResult) =>
  result[RAW_STRUCTURED] === undefined
    ? result
    : { content: result.content, isError: result.isError, _meta: result._meta, structuredContent: {} };

/** An error of a tool call as the SDK's protocol answers a handler's error. */
function errorAnswer(id: string | number, error: unknown): string {
  const { code, message, data } = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    error: {
      code: Number.isSafeInteger(code) ? code : ErrorCode.InternalError,
      message: typeof message === 'string' ? message : 'Internal error',
      ...(data !== undefined ? { data } : {}),
    },
  });
}

/** A plain tools/call has no stream: nothing to cancel, nothing to notify. */
const NO_STREAM: Omit<ToolCallExtra, 'signal'> = {
  sendNotification: async () => {},
};

export const mcpRoutes: RouteModule = (app, deps) => {
  const sessions = new SessionStore(deps.pool);
  let catalog: { doc: unknown; catalog: Catalog } | undefined;
  const currentCatalog = () => {
    const doc = app.swagger();
    if (catalog?.doc !== doc) catalog = { doc, catalog: catalogOf(doc as unknown as OpenApiDocument) };
    return catalog.catalog;
  };
  /**
   * When the app closes: a tool call still working (a watchRun) answers at once with what it has, and
   * the server-to-client streams (GET) close; either would otherwise hold the shutdown.
   */
  const shutdown = new AbortController();
  const streams = new Map<string, Set<WebStandardStreamableHTTPServerTransport>>();
  app.addHook('preClose', async () => {
    shutdown.abort();
    await Promise.all([...streams.values()].flatMap((set) => [...set].map((t) => t.close())));
  });

  /** Serves one request with a server of its own for its key, and sends what the transport answers. */
  const serve = async (
    request: FastifyRequest,
    reply: FastifyReply,
    options: {
      session?: McpSession;
      parsedBody?: unknown;
      stream: boolean;
      /** Before the answer goes: the session an initialize opens. */
      onAnswer?: (reply: FastifyReply) => Promise<void>;
    },
  ) => {
    const principal = principalOf(request);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: !options.stream,
    });
    const server = createMcpServer({
      caller: injectCaller(app, request),
      catalog: currentCatalog(),
      scopes: principal.scopes,
      shutdown: shutdown.signal,
    });
    const sessionId = options.session?.id;
    const done = () => {
      if (sessionId) streams.get(sessionId)?.delete(transport);
      void server.close();
    };
    await server.connect(transport);
    const headers = new Headers();
    for (const name of ['content-type', 'mcp-protocol-version', 'last-event-id']) {
      const value = header(request, name);
      if (value !== undefined) headers.set(name, value);
    }
    // The SDK insists on both media types; a client that takes one gets that one (options.stream).
    headers.set('accept', 'application/json, text/event-stream');
    const response = await transport.handleRequest(
      new Request(`http://localhost${request.url}`, { method: request.method, headers }),
      options.parsedBody === undefined ? {} : { parsedBody: options.parsedBody },
    );
    if (response.status >= 400) {
      done();
      if (response.status === 400 && options.parsedBody !== undefined) {
        const text = await response.text();
        if (text.includes('-32700')) throw invalidMessages(options.parsedBody);
        throw transportRefusal(400, messageOf(text) ?? 'The MCP transport refused the request (400).');
      }
      const message = messageOf(await response.text());
      throw transportRefusal(
        response.status,
        message ?? `The MCP transport refused the request (${response.status}).`,
      );
    }
    reply.code(response.status);
    response.headers.forEach((value, name) => {
      // Cache-Control stays `no-store` (config.noStore); the connection is fastify's.
      if (name !== 'connection' && name !== 'cache-control') reply.header(name, value);
    });
    if (options.onAnswer) await options.onAnswer(reply);
    if (!response.body) {
      done();
      return reply.send();
    }
    if (!options.stream) {
      // The transport has answered and holds nothing open: no close (which would make an error to
      // reject requests still pending, of which there are none).
      const text = await response.text();
      return reply.send(text);
    }
    if (sessionId && request.method === 'GET') {
      const set = streams.get(sessionId) ?? new Set();
      set.add(transport);
      streams.set(sessionId, set);
    }
    reply.raw.once('close', done);
    return reply.send(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>));
  };

  const config = {
    access: 'authenticated' as const,
    // Tool answers may hold a secret shown once (a new key, a webhook's signing secret).
    noStore: true,
    idempotency: {
      refuse:
        'an MCP message is not a request to replay; a tool takes the key as its idempotency-key argument',
    },
  };

  app.post('/mcp', { config, bodyLimit: BODY_LIMIT, schema: { hide: true } }, async (request, reply) => {
    const principal = principalOf(request);
    const messages = messagesOf(request.body);
    const stream = wantsStream(messages, header(request, 'accept') ?? '');
    const sessionId = header(request, SESSION_HEADER);
    const init = messages.find((m) => m.method === 'initialize') as
      | { params?: { protocolVersion?: unknown } }
      | undefined;
    if (init) {
      if (messages.length > 1)
        throw new AppError('bad_request', 'An initialize request comes alone, not in a batch.');
      // The session opens once the SDK has taken the initialize (a malformed one opens nothing).
      const asked = String(init.params?.protocolVersion);
      const version = SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
      const onAnswer = async (answer: FastifyReply) => {
        const session = await sessions.open(principal.keyId, principal.organizationId, version);
        answer.header(SESSION_HEADER, session.id);
      };
      return serve(request, reply, { parsedBody: request.body, stream, onAnswer });
    }
    if (!sessionId)
      throw new AppError(
        'bad_request',
        'Send the Mcp-Session-Id the initialize answer gave, or initialize first.',
        { errors: [{ path: 'headers.mcp-session-id', message: 'required after initialize' }] },
      );
    protocolVersionOf(request);
    const session = await sessions.find(sessionId, principal.keyId);
    if (!session) throw sessionGone();
    const plain = plainToolCall(messages, request, stream);
    const tools =
      plain &&
      toolCallsOf({
        caller: injectCaller(app, request),
        catalog: currentCatalog(),
        scopes: principal.scopes,
      });
    if (!plain || !tools?.has(plain.name))
      return serve(request, reply, { session, parsedBody: request.body, stream });
    let answer: string;
    try {
      const result = await tools.call(plain.name, plain.args, { ...NO_STREAM, signal: shutdown.signal });
      // As the SDK's server checks a tool's result (structuredContent is the route's JSON object).
      const checked = CallToolResultSchema.safeParse(shapeOf(result));
      answer = checked.success
        ? toolAnswer(plain.id, result)
        : errorAnswer(plain.id, {
            code: ErrorCode.InvalidParams,
            message: `Invalid tools/call result: ${checked.error.message}`,
          });
    } catch (error) {
      answer = errorAnswer(plain.id, error);
    }
    return reply.code(200).header('content-type', 'application/json').send(answer);
  });

  app.get('/mcp', { config, schema: { hide: true } }, async (request, reply) => {
    const principal = principalOf(request);
    if (!(header(request, 'accept') ?? '').includes('text/event-stream'))
      throw new AppError(
        'bad_request',
        'GET /mcp opens the server-to-client stream: Accept text/event-stream.',
      );
    const sessionId = header(request, SESSION_HEADER);
    if (!sessionId)
      throw new AppError('bad_request', 'Send the Mcp-Session-Id the initialize answer gave.', {
        errors: [{ path: 'headers.mcp-session-id', message: 'required' }],
      });
    protocolVersionOf(request);
    const session = await sessions.find(sessionId, principal.keyId);
    if (!session) throw sessionGone();
    return serve(request, reply, { session, stream: true });
  });

  app.delete('/mcp', { config, schema: { hide: true } }, async (request, reply) => {
    const principal = principalOf(request);
    const sessionId = header(request, SESSION_HEADER);
    if (!sessionId)
      throw new AppError('bad_request', 'Send the Mcp-Session-Id of the session to end.', {
        errors: [{ path: 'headers.mcp-session-id', message: 'required' }],
      });
    const session = await sessions.find(sessionId, principal.keyId);
    if (!session) throw sessionGone();
    await sessions.end(session.id);
    await Promise.all([...(streams.get(session.id) ?? [])].map((t) => t.close()));
    streams.delete(session.id);
    return reply.code(204).send();
  });
};
