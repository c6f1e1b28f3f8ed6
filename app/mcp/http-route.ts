import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  isInitializeRequest,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule, ZodApp } from '../../src/http/routes.ts';
import { type Caller, parseBody } from './caller.ts';
import { createMcpServer } from './server.ts';
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
 * process serves any session. A tool call is fastify's inject of the route it names, with the
 * caller's key and address: the HTTP API's validation, scopes, isolation, idempotency and problems.
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
    return {
      status: answer.statusCode,
      headers: answer.headers as Record<string, string | undefined>,
      body: parseBody(answer.body),
    };
  };
}

const header = (request: FastifyRequest, name: string) => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
};

/** The SDK's message schema checks the JSON-RPC envelope; its path in the body names what is wrong. */
function messagesOf(body: unknown): JSONRPCMessage[] {
  const list = Array.isArray(body) ? body : [body];
  if (list.length === 0 || list.length > 100)
    throw new AppError('validation_failed', 'The body is one JSON-RPC message or a batch of 1 to 100.', {
      errors: [{ path: '', message: 'one JSON-RPC 2.0 message, or an array of 1 to 100' }],
    });
  return list.map((message, index) => {
    const parsed = JSONRPCMessageSchema.safeParse(message);
    if (parsed.success) return parsed.data;
    const at = Array.isArray(body) ? `[${index}]` : '';
    throw new AppError('validation_failed', 'The body is not a JSON-RPC 2.0 message.', {
      errors: parsed.error.issues.slice(0, 5).map((issue) => ({
        path: `${at}${issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')}`.replace(
          /^\./,
          '',
        ),
        message: issue.message,
      })),
    });
  });
}

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

/** A status the SDK answered a refusal with, as the problem code of the same status. */
const CODE_OF: Record<
  number,
  'bad_request' | 'not_found' | 'payload_too_large' | 'unsupported_media_type' | 'conflict'
> = {
  400: 'bad_request',
  404: 'not_found',
  406: 'bad_request',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
};

export const mcpRoutes: RouteModule = (app, deps) => {
  const sessions = new SessionStore(deps.pool);
  let catalog: { doc: unknown; catalog: Catalog } | undefined;
  const currentCatalog = () => {
    const doc = app.swagger();
    if (catalog?.doc !== doc) catalog = { doc, catalog: catalogOf(doc as unknown as OpenApiDocument) };
    return catalog.catalog;
  };
  /** Open transports, closed when the app closes: an SSE stream would otherwise hold the shutdown. */
  const open = new Set<WebStandardStreamableHTTPServerTransport>();
  const streams = new Map<string, Set<WebStandardStreamableHTTPServerTransport>>();
  app.addHook('preClose', async () => {
    await Promise.all([...open].map((t) => t.close()));
  });

  /** Serves one request with a server of its own for its key, and sends what the transport answers. */
  const serve = async (
    request: FastifyRequest,
    reply: FastifyReply,
    options: { session?: McpSession; newSession?: McpSession; parsedBody?: unknown; json: boolean },
  ) => {
    const principal = principalOf(request);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: options.json,
    });
    const server = createMcpServer({
      caller: injectCaller(app, request),
      catalog: currentCatalog(),
      scopes: principal.scopes,
    });
    open.add(transport);
    const sessionId = options.session?.id ?? options.newSession?.id;
    const done = () => {
      open.delete(transport);
      if (sessionId) streams.get(sessionId)?.delete(transport);
      void server.close();
    };
    await server.connect(transport);
    const headers = new Headers();
    for (const name of ['content-type', 'mcp-protocol-version', 'last-event-id']) {
      const value = header(request, name);
      if (value !== undefined) headers.set(name, value);
    }
    // The SDK insists on both media types; a client that takes one gets that one (options.json).
    headers.set('accept', 'application/json, text/event-stream');
    const response = await transport.handleRequest(
      new Request(`http://localhost${request.url}`, { method: request.method, headers }),
      options.parsedBody === undefined ? {} : { parsedBody: options.parsedBody },
    );
    if (response.status >= 400) {
      done();
      const text = await response.text();
      const message = (parseBody(text) as { error?: { message?: string } } | undefined)?.error?.message;
      throw new AppError(
        CODE_OF[response.status] ?? 'bad_request',
        message ?? `The MCP transport refused the request (${response.status}).`,
      );
    }
    reply.code(response.status);
    response.headers.forEach((value, name) => {
      // Cache-Control stays `no-store` (config.noStore); the connection is fastify's.
      if (name !== 'connection' && name !== 'cache-control') reply.header(name, value);
    });
    if (options.newSession) reply.header(SESSION_HEADER, options.newSession.id);
    if (!response.body) {
      done();
      return reply.send();
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
    const accept = header(request, 'accept') ?? '';
    const json = !accept.includes('text/event-stream');
    const sessionId = header(request, SESSION_HEADER);
    if (messages.some((m) => isInitializeRequest(m))) {
      if (messages.length > 1)
        throw new AppError('bad_request', 'An initialize request comes alone, not in a batch.');
      const init = messages[0] as unknown as { params: { protocolVersion: string } };
      const version = SUPPORTED_PROTOCOL_VERSIONS.includes(init.params.protocolVersion)
        ? init.params.protocolVersion
        : SUPPORTED_PROTOCOL_VERSIONS[0];
      const newSession = await sessions.open(principal.keyId, principal.organizationId, version as string);
      return serve(request, reply, { newSession, parsedBody: request.body, json });
    }
    if (!sessionId)
      throw new AppError(
        'bad_request',
        'Send the Mcp-Session-Id the initialize answer gave, or initialize first.',
        {
          errors: [{ path: 'headers.mcp-session-id', message: 'required after initialize' }],
        },
      );
    protocolVersionOf(request);
    const session = await sessions.find(sessionId, principal.keyId);
    if (!session) throw sessionGone();
    return serve(request, reply, { session, parsedBody: request.body, json });
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
    return serve(request, reply, { session, json: false });
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
