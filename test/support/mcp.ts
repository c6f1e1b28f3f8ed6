import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bearer, bootstrapAccount, call, issueKey } from './accounts.ts';
import type { TestApp } from './app.ts';
import { createPrompt } from './prompts.ts';
import { type CountingTarget, startRunsApp, startTarget } from './runs.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** An MCP client of the SDK, connected to the service with a key over one transport. */
export type Connect = (baseUrl: string, apiKey: string) => Promise<Client>;

const newClient = () => new Client({ name: 'stk-tests', version: '1.0.0' });

/** Streamable HTTP at the service's POST /mcp, the key as a bearer token. */
export const connectHttp: Connect = async (baseUrl, apiKey) => {
  const client = newClient();
  await client.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    }),
  );
  return client;
};

/** stdio: `stk mcp` spawned as a host spawns it, the service's URL and the key in its environment. */
export const connectStdio: Connect = async (baseUrl, apiKey) => {
  const client = newClient();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/stk.js', 'mcp'],
    cwd: ROOT,
    env: { STK_BASE_URL: baseUrl, STK_API_KEY: apiKey, STK_CONFIG: `${ROOT}/.no-such-stk-config.json` },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => {
    stderr += d;
  });
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`stk mcp did not start: ${(error as Error).message}\n${stderr}`);
  }
  return client;
};

// biome-ignore lint/suspicious/noExplicitAny: tool answers are arbitrary JSON that tests pick apart
type Any = any;

/** A tool call that must succeed: its structuredContent (or parsed text when it has none). */
export async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<Any> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  assert.not.ok(result.isError, `${name}: ${text}`);
  return result.structuredContent ?? JSON.parse(text);
}

/** A tool call that must fail as a tool error: the problem it carries. */
export async function toolError(client: Client, name: string, args: Record<string, unknown>): Promise<Any> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.ok(result.isError, `${name} should be a tool error: ${JSON.stringify(result)}`);
  const problem = (result._meta as Any).problem;
  assert.type(problem, 'object');
  // What an agent reads is the same problem.
  assert.equal(JSON.parse((result.content[0] as Any).text), problem);
  return problem;
}

interface McpContext {
  t: TestApp;
  target: CountingTarget;
  key: string;
  readKey: string;
  other: { key: string };
  full: Client;
  reader: Client;
  outsider: Client;
}

/**
 * Issue 35: the whole of what an agent does, through the SDK's own client over one transport, against
 * the service with its workers and a loopback target for http_request columns. Every answer that
 * has an HTTP twin is compared with what the HTTP API says to the same request.
 */
export function mcpSuite(name: string, connect: Connect) {
  const test = suite<McpContext>(name);

  test.before(async (ctx) => {
    ctx.t = await startRunsApp();
    ctx.target = await startTarget({ delayMs: 150 });
    ctx.key = (await bootstrapAccount(ctx.t.url)).apiKey;
    ctx.readKey = (await issueKey(ctx.t.url, ctx.key, ['tables:read'], 'read only')).apiKey;
    ctx.other = { key: (await bootstrapAccount(ctx.t.url)).apiKey };
    [ctx.full, ctx.reader, ctx.outsider] = await Promise.all([
      connect(ctx.t.url, ctx.key),
      connect(ctx.t.url, ctx.readKey),
      connect(ctx.t.url, ctx.other.key),
    ]);
  });
  test.after(async (ctx) => {
    await Promise.all([ctx.full?.close(), ctx.reader?.close(), ctx.outsider?.close()]);
    await ctx.target?.close();
    await ctx.t?.close();
  });

  test('a full key lists every operation an API key may call, named by its operationId, with annotations', async (ctx) => {
    const { tools } = await ctx.full.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [
      'createTable',
      'insertRows',
      'listRows',
      'estimateColumnRun',
      'startColumnRun',
      'getRun',
    ])
      assert.ok(byName.has(name), `${name} is a tool`);
    assert.ok(byName.has('watchRun'), 'watchRun: a run can be watched');
    // Left out: no API key there (health, the blog, signing up), or a secret of their own (metrics, sync).
    for (const name of [
      'checkLiveness',
      'checkReadiness',
      'getMetrics',
      'syncContent',
      'syncContentSlugs',
      'getBlogIndex',
      'bootstrapAccount',
      'loginWithPassword',
    ])
      assert.not.ok(byName.has(name), `${name} is no tool`);
    const start = byName.get('startColumnRun') as Any;
    assert.ok(start.inputSchema.required.includes('maxCredits'));
    assert.equal(start.inputSchema.required.sort(), ['body', 'columnId', 'maxCredits', 'tableId']);
    assert.is(start.annotations.openWorldHint, true);
    const list = byName.get('listTables') as Any;
    assert.equal(
      [list.annotations.readOnlyHint, list.annotations.idempotentHint, list.annotations.openWorldHint],
      [true, true, false],
    );
    assert.ok(list.outputSchema.properties.data, 'a read says what it answers');
    const del = byName.get('deleteTable') as Any;
    assert.equal([del.annotations.readOnlyHint, del.annotations.destructiveHint], [false, true]);
    const insert = byName.get('insertRows') as Any;
    assert.equal(
      [insert.annotations.destructiveHint, insert.annotations.idempotentHint],
      [false, true],
      'an insert honours Idempotency-Key: the idempotency-key argument',
    );
    assert.ok(insert.inputSchema.properties['idempotency-key']);
    assert.is((byName.get('searchWeb') as Any).annotations.openWorldHint, true);
  });

  test('a read-only key sees only the tools its scope allows', async (ctx) => {
    const { tools } = await ctx.reader.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ['listTables', 'getTable', 'listRows', 'queryRows', 'getMe'])
      assert.ok(names.includes(name), name);
    for (const name of ['createTable', 'insertRows', 'startColumnRun', 'getRun', 'watchRun', 'issueApiKey'])
      assert.not.ok(names.includes(name), `${name} needs another scope`);
    for (const t of tools) assert.is((t.annotations as Any).readOnlyHint, true, `${t.name} only reads`);
  });

  test("an agent's whole flow: table, columns, rows, estimate, a run under maxCredits watched to its end, rows read back", async (ctx) => {
    const c = ctx.full;
    const table = await tool(c, 'createTable', { body: { name: 'Agent table' } });
    assert.match(table.id, /^tbl_/);
    const n = await tool(c, 'createColumn', {
      tableId: table.id,
      body: { label: 'N', key: 'n', kind: 'input', dataType: 'text' },
    });
    const result = await tool(c, 'createColumn', {
      tableId: table.id,
      body: {
        label: 'Result',
        key: 'result',
        kind: 'enrichment',
        dataType: 'json',
        config: { provider: 'http_request', method: 'GET', url: `${ctx.target.url}/r?n={{n}}` },
      },
    });
    assert.is(n.key, 'n');
    const inserted = await tool(c, 'insertRows', {
      tableId: table.id,
      body: { rows: [{ cells: { n: '1' } }, { cells: { n: '2' } }, { cells: { n: '3' } }] },
      'idempotency-key': 'agent-insert-1',
    });
    assert.is(inserted.data.length, 3);

    const schema = await c.readResource({ uri: `stk://tables/${table.id}/schema` });
    const read = JSON.parse((schema.contents[0] as Any).text);
    assert.equal(
      read.columns.map((col: Any) => [col.key, col.dataType, col.kind]),
      [
        ['n', 'text', 'input'],
        ['result', 'json', 'enrichment'],
      ],
    );
    assert.is(read.columns[1].config.provider, 'http_request');

    const ids = { tableId: table.id, columnId: result.id };
    const estimate = await tool(c, 'estimateColumnRun', { ...ids, body: { scope: 'all' } });
    assert.equal([estimate.eligible, estimate.estimatedCredits], [3, 3]);
    const started = (await c.callTool({
      name: 'startColumnRun',
      arguments: { ...ids, body: { scope: 'all' }, maxCredits: 3 },
    })) as CallToolResult;
    assert.not.ok(started.isError, JSON.stringify(started));
    const run = started.structuredContent as Any;
    assert.match(run.id, /^run_/);
    assert.is((started._meta as Any).httpStatus, 202);
    assert.is((started._meta as Any).location, `/api/runs/${run.id}`);

    const progress: Progress[] = [];
    const watched = (await c.callTool({ name: 'watchRun', arguments: { runId: run.id } }, undefined, {
      onprogress: (p) => progress.push(p),
    })) as CallToolResult;
    const ended = watched.structuredContent as Any;
    assert.is(ended.status, 'succeeded');
    assert.is(ended.counts.succeeded, 3);
    assert.ok(progress.length >= 1, 'progress was reported');
    const last = progress.at(-1) as Progress;
    assert.equal([last.progress, last.total], [3, 3]);
    assert.match(String(last.message), /^(running|succeeded): 3 of 3 rows done$/);
    for (let i = 1; i < progress.length; i++)
      assert.ok(
        (progress[i] as Progress).progress > (progress[i - 1] as Progress).progress,
        'progress only grows',
      );
    const status = await c.readResource({ uri: `stk://runs/${run.id}` });
    assert.is(JSON.parse((status.contents[0] as Any).text).status, 'succeeded');

    const rows = await tool(c, 'listRows', { tableId: table.id });
    assert.equal(rows.data.map((r: Any) => r.cells.result.n).sort(), ['1', '2', '3']);
    // The same answer the HTTP API gives to the same request.
    const http = await call(ctx.t.url, 'GET', `/api/tables/${table.id}/rows`, { headers: bearer(ctx.key) });
    assert.equal(rows, http.body);
  });

  test('a run over maxCredits is not started, and the answer says what it would have cost', async (ctx) => {
    const c = ctx.full;
    const table = await tool(c, 'createTable', { body: { name: 'Costly' } });
    await tool(c, 'createColumn', {
      tableId: table.id,
      body: { label: 'N', key: 'n', kind: 'input', dataType: 'text' },
    });
    const column = await tool(c, 'createColumn', {
      tableId: table.id,
      body: {
        label: 'R',
        key: 'r',
        kind: 'enrichment',
        dataType: 'json',
        config: { provider: 'http_request', method: 'GET', url: `${ctx.target.url}/r?n={{n}}` },
      },
    });
    await tool(c, 'insertRows', {
      tableId: table.id,
      body: { rows: [{ cells: { n: 'a' } }, { cells: { n: 'b' } }] },
    });
    const args = { tableId: table.id, columnId: column.id, body: { scope: 'all' } };
    const refused = await toolError(c, 'startColumnRun', { ...args, maxCredits: 1 });
    assert.is(refused.code, 'max_credits_exceeded');
    assert.is(refused.estimate.estimatedCredits, 2);
    assert.match(refused.detail, 'would cost 2 credits');
    assert.equal(refused.errors, [{ path: 'maxCredits', message: 'the estimate is 2 credits' }]);
    const runs = await call(ctx.t.url, 'GET', `/api/tables/${table.id}/runs`, { headers: bearer(ctx.key) });
    assert.equal(runs.body.data, [], 'no run was started');
    const missing = await toolError(c, 'startColumnRun', args);
    assert.is(missing.code, 'validation_failed');
    assert.equal(
      missing.errors.map((e: Any) => e.path),
      ['maxCredits'],
    );
  });

  test('a tool outside the key’s scopes is a tool error carrying the missing_scope problem, as HTTP answers it', async (ctx) => {
    const problem = await toolError(ctx.reader, 'createTable', { body: { name: 'Nope' } });
    const http = await call(ctx.t.url, 'POST', '/api/tables', {
      headers: bearer(ctx.readKey),
      body: { name: 'Nope' },
    });
    assert.is(http.status, 403);
    assert.equal(
      [problem.status, problem.code, problem.detail, problem.scope],
      [403, 'missing_scope', http.body.detail, 'tables:write'],
    );
  });

  test("another organization's ids answer as HTTP answers them, and say nothing more", async (ctx) => {
    const table = await tool(ctx.full, 'createTable', { body: { name: 'Private' } });
    for (const [name, args, path] of [
      ['getTable', { tableId: table.id }, `/api/tables/${table.id}`],
      ['listRows', { tableId: table.id }, `/api/tables/${table.id}/rows`],
      ['getRun', { runId: 'run_doesnotexist' }, '/api/runs/run_doesnotexist'],
    ] as const) {
      const problem = await toolError(ctx.outsider, name, args);
      const http = await call(ctx.t.url, 'GET', path, { headers: bearer(ctx.other.key) });
      assert.equal(
        [problem.status, problem.code, problem.detail],
        [http.status, http.body.code, http.body.detail],
        name,
      );
    }
    // Nor as a resource.
    try {
      await ctx.outsider.readResource({ uri: `stk://tables/${table.id}/schema` });
      assert.unreachable('another organization’s table is not readable');
    } catch (error) {
      assert.match(String(error), /another organization|not found|forbidden/i);
    }
  });

  test('a malformed tool input is a tool error whose errors[].path names the argument to correct', async (ctx) => {
    const table = await tool(ctx.full, 'createTable', { body: { name: 'Typed' } });
    await tool(ctx.full, 'createColumn', {
      tableId: table.id,
      body: { label: 'Score', key: 'score', kind: 'input', dataType: 'number' },
    });
    const bad = await toolError(ctx.full, 'insertRows', {
      tableId: table.id,
      body: { rows: [{ cells: { score: 'high' } }] },
    });
    assert.is(bad.status, 400);
    assert.is(bad.code, 'validation_failed');
    assert.equal(
      bad.errors.map((e: Any) => e.path),
      ['body.rows[0].cells.score'],
    );
    const unknown = await toolError(ctx.full, 'createTable', { body: { name: 'x' }, colour: 'red' });
    assert.equal(unknown.errors, [{ path: 'colour', message: 'not an argument of this tool' }]);
    const query = await toolError(ctx.full, 'listTables', { limit: 1000 });
    assert.equal(
      query.errors.map((e: Any) => e.path),
      ['limit'],
    );
    const noBody = await toolError(ctx.full, 'createTable', {});
    assert.equal(noBody.errors, [{ path: 'body', message: 'required' }]);
  });

  test("the organization's prompt templates are prompts: listed with their variables, fetched with arguments", async (ctx) => {
    const template = await createPrompt(ctx.t.url, ctx.key, {
      name: `greeting-${Date.now()}`,
      description: 'Greets a lead',
      template: 'Hello {{name}} from {{company}}',
      variables: [
        { name: 'name', required: true },
        { name: 'company', required: false, default: 'Acme' },
      ],
    });
    const { prompts } = await ctx.full.listPrompts();
    const listed = prompts.find((p) => p.name === template.name);
    assert.ok(listed, 'the template is a prompt');
    assert.equal(listed?.arguments, [
      { name: 'name', required: true },
      { name: 'company', required: false, description: 'default: Acme' },
    ]);
    assert.is(listed?.description, 'Greets a lead');
    const got = await ctx.full.getPrompt({ name: template.name, arguments: { name: 'Ada' } });
    const http = await call(ctx.t.url, 'POST', `/api/prompts/${template.id}/render`, {
      headers: bearer(ctx.key),
      body: { variables: { name: 'Ada' } },
    });
    assert.equal(got.messages, [{ role: 'user', content: { type: 'text', text: http.body.text } }]);
    assert.is(http.body.text, 'Hello Ada from Acme');
    try {
      await ctx.full.getPrompt({ name: template.name, arguments: {} });
      assert.unreachable('a required variable is required');
    } catch (error) {
      assert.match(String(error), /name/);
    }
    // A key without prompts:read has no prompts.
    assert.equal((await ctx.reader.listPrompts()).prompts, []);
  });

  test('resource templates: a table’s schema and a run’s status', async (ctx) => {
    const { resourceTemplates } = await ctx.full.listResourceTemplates();
    assert.equal(
      resourceTemplates.map((r) => r.uriTemplate),
      ['stk://tables/{tableId}/schema', 'stk://runs/{runId}'],
    );
    const reader = await ctx.reader.listResourceTemplates();
    assert.equal(
      reader.resourceTemplates.map((r) => r.uriTemplate),
      ['stk://tables/{tableId}/schema'],
    );
    const { resources } = await ctx.full.listResources();
    assert.ok(resources.some((r) => r.name === 'Agent table (schema)'));
  });

  return test;
}

/**
 * The JSON-RPC answer in a Streamable HTTP response's text: its one JSON body, or (when the server
 * streamed) the message among the SSE events that carries a result or an error.
 */
// biome-ignore lint/suspicious/noExplicitAny: a JSON-RPC message is arbitrary JSON that callers pick apart
export function jsonRpcAnswer(contentType: string | null, text: string): any {
  if (contentType?.includes('json')) return JSON.parse(text);
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)))
    .find((message) => 'result' in message || 'error' in message);
}
