import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  type ApiAnswer,
  type Caller,
  problemResult,
  requestOf,
  resultOf,
  type ToolProblem,
} from './caller.ts';
import { ANY_KEY, allows, type Catalog, type Json, type OperationTool } from './tools.ts';

/**
 * One MCP server over the service's routes, for one API key: its tools (app/mcp/tools.ts) as its
 * scopes allow, the organization's prompt templates as prompts, and resources for a table's schema
 * and a run's status. Every call goes through `caller` to the route it names, with the key, so that
 * the answers are the HTTP API's. Both transports build it: Streamable HTTP per request
 * (app/mcp/http-route.ts), stdio once per process (`stk mcp`, app/cli/verbs/mcp.ts).
 */
export interface McpContext {
  caller: Caller;
  catalog: Catalog;
  /** The scopes of the key the calls are made with. */
  scopes: ReadonlySet<string>;
  /** How often watchRun looks at its run, in ms (250 by default). */
  pollMs?: number;
  /** Aborted when the service shuts down: a watchRun answers at once with the run as it is. */
  shutdown?: AbortSignal;
}

export const SERVER_INFO = { name: 'stk', version: '0.1.0' } as const;

const INSTRUCTIONS =
  'The stk developer API (research tables, columns, rows, runs, leads, sequences, tasks, webhooks, search) ' +
  'as tools, one per operation of its OpenAPI document and named by its operationId. A tool error carries ' +
  "the API's problem: its code, detail and errors[].path naming the argument to correct. Read a table's " +
  'schema (stk://tables/{tableId}/schema) before writing rows; estimate a run (estimateColumnRun) before ' +
  'starting it (startColumnRun, which needs maxCredits); then watch it with watchRun.';

/** The operations the agent features use, by method and path (stable: they are the HTTP contract). */
export const OPERATIONS = {
  startRun: 'POST /api/tables/{tableId}/columns/{columnId}/run',
  estimate: 'POST /api/tables/{tableId}/columns/{columnId}/estimate',
  getRun: 'GET /api/runs/{runId}',
  listPrompts: 'GET /api/prompts',
  renderPrompt: 'POST /api/prompts/{promptId}/render',
  listTables: 'GET /api/tables',
  getTable: 'GET /api/tables/{tableId}',
  listColumns: 'GET /api/tables/{tableId}/columns',
} as const;

export const WATCH_RUN = 'watchRun';
const RUN_ENDED = new Set(['succeeded', 'partially_succeeded', 'failed', 'stopped']);
const TABLE_SCHEMA = /^stk:\/\/tables\/([^/]+)\/schema$/;
const RUN_STATUS = /^stk:\/\/runs\/([^/]+)$/;

const operation = (catalog: Catalog, key: string): OperationTool | undefined => catalog.byRoute.get(key);

const MAX_CREDITS = {
  type: 'number',
  minimum: 0,
  description:
    'The most credits this run may cost. The estimate is checked first: when it is over, the run is not ' +
    'started and the answer says what it would have cost.',
};

/** The tool as the agent sees it: the run-starting one takes a required maxCredits besides its operation's input. */
function listed(tool: OperationTool, catalog: Catalog): Tool {
  const isRunStart = tool === operation(catalog, OPERATIONS.startRun);
  const inputSchema = isRunStart
    ? {
        ...tool.inputSchema,
        properties: { ...(tool.inputSchema.properties as Json), maxCredits: MAX_CREDITS },
        required: [...((tool.inputSchema.required as string[]) ?? []), 'maxCredits'],
      }
    : tool.inputSchema;
  return {
    name: tool.name,
    title: tool.title,
    description: isRunStart
      ? `${tool.description}\n\nmaxCredits is required: the estimate is checked first and a run over it is not started. Watch the run with ${WATCH_RUN}.`
      : tool.description,
    inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    annotations: tool.annotations,
  };
}

function watchRunTool(getRun: OperationTool): Tool {
  return {
    name: WATCH_RUN,
    title: 'Watch a run until it ends',
    description:
      'Waits until the run has ended (succeeded, partially_succeeded, failed or stopped), sending MCP ' +
      'progress notifications (rows done of the total) when the call carries a progressToken, and answers ' +
      `the run as ${getRun.name} does. After timeoutSeconds (default 600) it answers the run as it is then.`,
    inputSchema: {
      type: 'object',
      properties: {
        runId: { type: 'string', description: 'The id of the run (startColumnRun answers it)' },
        timeoutSeconds: { type: 'number', minimum: 1, maximum: 3600, default: 600 },
      },
      required: ['runId'],
      additionalProperties: false,
    },
    ...(getRun.outputSchema ? { outputSchema: getRun.outputSchema } : {}),
    annotations: {
      title: 'Watch a run until it ends',
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
  };
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** An answer that is not a success, as a JSON-RPC error carrying the problem (prompts and resources have no tool errors). */
function protocolError(answer: ApiAnswer): McpError {
  const problem = (answer.body ?? {}) as Partial<ToolProblem>;
  const code =
    answer.status === 404 ? -32002 : answer.status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidParams;
  return new McpError(code, problem.detail ?? `HTTP ${answer.status}`, problem);
}

interface RunView {
  id: string;
  status: string;
  counts: { total: number; succeeded: number; failed: number; skipped: number };
}

/**
 * The server's validator of JSON Schemas (it checks what a client answers to elicitations, which this
 * server never asks for): one for every server, since each request over HTTP builds a server, and
 * the SDK's default makes a new ajv each time.
 */
const validator = new AjvJsonSchemaValidator();

/** What a tool call needs of its request: cancellation and, for watchRun, progress notifications. */
export interface ToolCallExtra {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number };
  sendNotification: (notification: never) => Promise<void>;
}

/**
 * The tools of a server for one key: the server's tools/call handler, and what POST /mcp calls for a
 * plain tools/call (app/mcp/http-route.ts) without building a server, so both answer alike.
 */
export interface ToolCalls {
  /** The tool of this name, when there is one (the key's scopes aside: the route checks them). */
  has(name: string): boolean;
  call(name: string, args: Json, extra: ToolCallExtra): Promise<CallToolResult>;
}

export function toolCallsOf(ctx: McpContext): ToolCalls {
  const { caller, catalog } = ctx;
  const pollMs = ctx.pollMs ?? 250;
  const startRun = async (tool: OperationTool, args: Json): Promise<CallToolResult> => {
    const { maxCredits, ...rest } = args;
    if (typeof maxCredits !== 'number' || !Number.isFinite(maxCredits) || maxCredits < 0)
      return problemResult({
        status: 400,
        code: 'validation_failed',
        detail: 'maxCredits is required: the most credits the run may cost (a number, 0 or more).',
        errors: [{ path: 'maxCredits', message: 'required: a number, 0 or more' }],
      });
    const made = requestOf(tool, rest);
    if (made.problem) return problemResult(made.problem);
    const { request } = made;
    const estimateTool = operation(catalog, OPERATIONS.estimate) ?? tool;
    const { 'idempotency-key': _key, ...estimateHeaders } = request.headers ?? {};
    const estimated = await caller({
      ...request,
      url: request.url.replace(/\/run(\?|$)/, '/estimate$1'),
      headers: estimateHeaders,
    });
    if (estimated.status >= 400) return resultOf(estimateTool, estimated);
    const estimate = estimated.body as { estimatedCredits: number; eligible: number; creditsPerRow: number };
    if (estimate.estimatedCredits > maxCredits)
      return problemResult({
        code: 'max_credits_exceeded',
        detail:
          `The run was not started: it would cost ${estimate.estimatedCredits} credits (${estimate.eligible} rows at ` +
          `${estimate.creditsPerRow}), over maxCredits ${maxCredits}.`,
        errors: [{ path: 'maxCredits', message: `the estimate is ${estimate.estimatedCredits} credits` }],
        estimate,
      });
    const result = resultOf(tool, await caller(request));
    return { ...result, _meta: { ...result._meta, estimate } };
  };

  const watchRun = async (args: Json, extra: ToolCallExtra): Promise<CallToolResult> => {
    const getRun = operation(catalog, OPERATIONS.getRun) as OperationTool;
    const { runId, timeoutSeconds = 600, ...unknown } = args;
    const bad = [
      ...Object.keys(unknown).map((path) => ({ path, message: 'not an argument of this tool' })),
      ...(typeof runId === 'string' && runId ? [] : [{ path: 'runId', message: 'required: a run id' }]),
      ...(typeof timeoutSeconds === 'number' && timeoutSeconds > 0
        ? []
        : [{ path: 'timeoutSeconds', message: 'a number of seconds, more than 0' }]),
    ];
    if (bad.length > 0)
      return problemResult({
        status: 400,
        code: 'validation_failed',
        detail: "The tool's arguments are invalid.",
        errors: bad,
      });
    const token = extra._meta?.progressToken;
    const deadline = Date.now() + Math.min(timeoutSeconds as number, 3600) * 1000;
    let reported = -1;
    const look = () => caller({ method: 'GET', url: `/api/runs/${encodeURIComponent(runId as string)}` });
    let answer = await look();
    for (;;) {
      if (answer.status >= 400) return resultOf(getRun, answer);
      const run = answer.body as RunView;
      const done = run.counts.succeeded + run.counts.failed + run.counts.skipped;
      if (token !== undefined && done > reported) {
        reported = done;
        await extra.sendNotification({
          method: 'notifications/progress',
          params: {
            progressToken: token,
            progress: done,
            total: run.counts.total,
            message: `${run.status}: ${done} of ${run.counts.total} rows done`,
          },
        } as never);
      }
      const ended = RUN_ENDED.has(run.status);
      const stopping = ctx.shutdown?.aborted === true;
      if (ended || stopping || Date.now() >= deadline || extra.signal.aborted) {
        // The SDK's client handles a notification a tick after it reads it, and forgets the token
        // once the answer is read: a last notification read with the answer would be lost.
        if (reported === done) await sleep(25, extra.signal);
        const result = resultOf(getRun, answer);
        if (!ended)
          result.content.unshift({
            type: 'text',
            text: stopping
              ? `The run has not ended yet (${run.status}); the service is shutting down: call ${WATCH_RUN} again.`
              : `The run has not ended yet (${run.status}).`,
          });
        return result;
      }
      await sleep(pollMs, ctx.shutdown ? AbortSignal.any([extra.signal, ctx.shutdown]) : extra.signal);
      // Shutting down (or cancelled) while waiting: the routes may be gone; answer the run last seen.
      if (!ctx.shutdown?.aborted && !extra.signal.aborted) answer = await look();
    }
  };

  return {
    has: (name) => name === WATCH_RUN || catalog.byName.has(name),
    async call(name, args, extra) {
      const getRun = operation(catalog, OPERATIONS.getRun);
      const tool = name === WATCH_RUN ? getRun : catalog.byName.get(name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `No tool named ${name}`);
      if (name === WATCH_RUN) return watchRun(args, extra);
      if (tool === operation(catalog, OPERATIONS.startRun)) return startRun(tool, args);
      const made = requestOf(tool, args);
      if (made.problem) return problemResult(made.problem);
      return resultOf(tool, await caller(made.request));
    },
  };
}

export function createMcpServer(ctx: McpContext): Server {
  const { caller, catalog, scopes } = ctx;
  const can = (key: string) => {
    const op = operation(catalog, key);
    return op !== undefined && allows(scopes, op.access);
  };
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {}, prompts: {}, resources: {} },
    instructions: INSTRUCTIONS,
    jsonSchemaValidator: validator,
  });

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = catalog.tools.filter((t) => allows(scopes, t.access)).map((t) => listed(t, catalog));
    const getRun = operation(catalog, OPERATIONS.getRun);
    if (getRun && allows(scopes, getRun.access)) tools.push(watchRunTool(getRun));
    return { tools };
  });

  const tools = toolCallsOf(ctx);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) =>
    tools.call(request.params.name, (request.params.arguments ?? {}) as Json, extra as never),
  );

  // The organization's prompt templates: MCP's cursor is the API's.
  interface Template {
    id: string;
    name: string;
    description: string | null;
    variables: { name: string; required: boolean; default?: string }[];
  }
  const promptsPage = async (cursor?: string) => {
    const query = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
    const answer = await caller({ method: 'GET', url: `/api/prompts?${query}` });
    if (answer.status >= 400) throw protocolError(answer);
    return answer.body as { data: Template[]; nextCursor: string | null };
  };

  server.setRequestHandler(ListPromptsRequestSchema, async (request) => {
    if (!can(OPERATIONS.listPrompts)) return { prompts: [] };
    const page = await promptsPage(request.params?.cursor);
    return {
      prompts: page.data.map((t) => ({
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        arguments: t.variables.map((v) => ({
          name: v.name,
          required: v.required,
          ...(v.default !== undefined ? { description: `default: ${v.default}` } : {}),
        })),
      })),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  });

  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const { name } = request.params;
    let template: Template | undefined;
    let cursor: string | undefined;
    do {
      const page = await promptsPage(cursor);
      template = page.data.find((t) => t.name === name);
      cursor = page.nextCursor ?? undefined;
    } while (!template && cursor);
    if (!template) throw new McpError(ErrorCode.InvalidParams, `No prompt template named ${name}`);
    const answer = await caller({
      method: 'POST',
      url: `/api/prompts/${encodeURIComponent(template.id)}/render`,
      body: { variables: request.params.arguments ?? {} },
    });
    if (answer.status >= 400) throw protocolError(answer);
    const { text } = answer.body as { text: string };
    return {
      ...(template.description ? { description: template.description } : {}),
      messages: [{ role: 'user', content: { type: 'text', text } }],
    };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      ...(can(OPERATIONS.getTable) && can(OPERATIONS.listColumns)
        ? [
            {
              uriTemplate: 'stk://tables/{tableId}/schema',
              name: 'table-schema',
              title: "A table's schema",
              description: 'The table and its columns: keys, data types, kinds and provider configs.',
              mimeType: 'application/json',
            },
          ]
        : []),
      ...(can(OPERATIONS.getRun)
        ? [
            {
              uriTemplate: 'stk://runs/{runId}',
              name: 'run-status',
              title: "A run's status",
              description: 'The run: status, row counts and credits, as getRun answers it.',
              mimeType: 'application/json',
            },
          ]
        : []),
    ],
  }));

  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    if (!can(OPERATIONS.listTables) || !can(OPERATIONS.listColumns)) return { resources: [] };
    const cursor = request.params?.cursor;
    const query = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
    const answer = await caller({ method: 'GET', url: `/api/tables?${query}` });
    if (answer.status >= 400) throw protocolError(answer);
    const page = answer.body as { data: { id: string; name: string }[]; nextCursor?: string | null };
    return {
      resources: page.data.map((t) => ({
        uri: `stk://tables/${t.id}/schema`,
        name: `${t.name} (schema)`,
        mimeType: 'application/json',
      })),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
    };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const json = (value: unknown) => ({
      contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value, null, 2) }],
    });
    const get = async (url: string) => {
      const answer = await caller({ method: 'GET', url });
      if (answer.status >= 400) throw protocolError(answer);
      return answer.body;
    };
    const table = TABLE_SCHEMA.exec(uri);
    if (table) {
      const id = encodeURIComponent(decodeURIComponent(table[1] as string));
      const [about, columns] = [await get(`/api/tables/${id}`), await get(`/api/tables/${id}/columns`)];
      const shown = (columns as Json[]).map(({ id, key, label, kind, dataType, autoRun, config }) => ({
        id,
        key,
        label,
        kind,
        dataType,
        autoRun,
        config,
      }));
      return json({ table: about, columns: shown });
    }
    const run = RUN_STATUS.exec(uri);
    if (run) return json(await get(`/api/runs/${encodeURIComponent(decodeURIComponent(run[1] as string))}`));
    throw new McpError(
      -32002,
      `No resource ${uri}: stk://tables/{tableId}/schema and stk://runs/{runId} are served`,
    );
  });

  return server;
}

export { ANY_KEY };
