import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bearer, bootstrapAccount, issueKey } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { jsonRpcAnswer } from '../../support/mcp.ts';
import { insertRows } from '../../support/rows.ts';
import { createColumn, createTable, startTablesApp } from '../../support/tables.ts';

/**
 * Issue 35, item 7: POST /mcp answers a plain tools/call (alone, no progress asked, JSON accepted)
 * itself instead of through an SDK server built for the request. Its answers must be those of the
 * SDK's server, which still answers the same call when it asks for progress (an SSE stream) or comes
 * in a batch: successes, tool errors and protocol errors alike.
 */
interface Context {
  t: TestApp;
  key: string;
  readKey: string;
  session: Record<string, string>;
  readSession: Record<string, string>;
  tableId: string;
}
const test = suite<Context>('mcp: a plain tools/call answers as the SDK server does');

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers are arbitrary JSON that tests pick apart
type Any = any;

const BOTH = 'application/json, text/event-stream';

async function post(ctx: Context, key: string, session: Record<string, string>, body: unknown) {
  const answer = await fetch(`${ctx.t.url}/mcp`, {
    method: 'POST',
    headers: {
      accept: BOTH,
      'content-type': 'application/json',
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      ...bearer(key),
      ...session,
    },
    body: JSON.stringify(body),
  });
  const text = await answer.text();
  const type = answer.headers.get('content-type') ?? '';
  const json: Any = jsonRpcAnswer(type, text);
  return { status: answer.status, type, json, text };
}

async function open(ctx: Context, key: string): Promise<Record<string, string>> {
  const opened = await fetch(`${ctx.t.url}/mcp`, {
    method: 'POST',
    headers: { accept: BOTH, 'content-type': 'application/json', ...bearer(key) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      },
    }),
  });
  await opened.text();
  return { 'mcp-session-id': opened.headers.get('mcp-session-id') as string };
}

test.before(async (ctx) => {
  ctx.t = await startTablesApp();
  ctx.key = (await bootstrapAccount(ctx.t.url)).apiKey;
  ctx.readKey = (await issueKey(ctx.t.url, ctx.key, ['tables:read'], 'read only')).apiKey;
  ctx.session = await open(ctx, ctx.key);
  ctx.readSession = await open(ctx, ctx.readKey);
  ctx.tableId = await createTable(ctx.t.url, ctx.key, 'Plain');
  await createColumn(ctx.t.url, ctx.key, ctx.tableId, {
    label: 'Name',
    key: 'name',
    kind: 'input',
    dataType: 'text',
  });
  await insertRows(ctx.t.url, ctx.key, ctx.tableId, [{ name: 'Ada "the first" \\ Lovelace' }]);
});
test.after(async (ctx) => {
  await ctx.t?.close();
});

/** An answer with the request id of a problem (each request's own) made one. */
const sameRequestId = (json: Any) =>
  JSON.parse(JSON.stringify(json).replace(/(requestId\\?":\\?")[0-9a-f-]{36}/g, '$1<id>'));

/** The same call three ways: plain (answered by the endpoint), with a progressToken, and in a batch (both the SDK's). */
async function threeWays(ctx: Context, params: Any, key = ctx.key, session = ctx.session) {
  const plain = await post(ctx, key, session, { jsonrpc: '2.0', id: 'p-1', method: 'tools/call', params });
  const streamed = await post(ctx, key, session, {
    jsonrpc: '2.0',
    id: 'p-1',
    method: 'tools/call',
    params: { ...params, _meta: { progressToken: 'tok' } },
  });
  const batch = await post(ctx, key, session, [{ jsonrpc: '2.0', id: 'p-1', method: 'tools/call', params }]);
  assert.is(plain.status, 200);
  assert.match(plain.type, /^application\/json/);
  assert.match(streamed.type, /^text\/event-stream/, 'a call asking for progress is streamed by the SDK');
  // The SDK answers a batch of one with the one answer.
  const [plainJson, streamedJson, batchJson] = [plain.json, streamed.json, batch.json].map(sameRequestId);
  assert.equal(plainJson, streamedJson, `plain and streamed answers of ${params.name}`);
  assert.equal([plainJson], [batchJson].flat(), `plain and batched answers of ${params.name}`);
  return plain.json;
}

test('a success: the route’s body as structuredContent and as text, its status in _meta', async (ctx) => {
  const table = await threeWays(ctx, { name: 'getTable', arguments: { tableId: ctx.tableId } });
  assert.is(table.jsonrpc, '2.0');
  assert.is(table.id, 'p-1');
  assert.is(table.result.structuredContent.id, ctx.tableId);
  assert.equal(JSON.parse(table.result.content[0].text), table.result.structuredContent);
  assert.equal(table.result._meta, { httpStatus: 200 });
  // Quotes and backslashes in a cell survive both renderings.
  const rows = await threeWays(ctx, { name: 'listRows', arguments: { tableId: ctx.tableId } });
  assert.is(rows.result.structuredContent.data[0].cells.name, 'Ada "the first" \\ Lovelace');
  assert.equal(JSON.parse(rows.result.content[0].text), rows.result.structuredContent);
  // A number id is echoed as a number.
  const numbered = await post(ctx, ctx.key, ctx.session, {
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'getTable', arguments: { tableId: ctx.tableId } },
  });
  assert.is(numbered.json.id, 7);
  assert.is(numbered.json.result.structuredContent.id, ctx.tableId);
});

test('tool errors: the route’s problem, missing scopes, arguments refused before the route', async (ctx) => {
  const missing = await threeWays(ctx, { name: 'getTable', arguments: { tableId: 'tbl_doesnotexist' } });
  assert.is(missing.result.isError, true);
  assert.is(missing.result._meta.problem.status, 404);
  assert.is(missing.result._meta.httpStatus, 404);
  const scope = await threeWays(
    ctx,
    { name: 'createTable', arguments: { body: { name: 'Nope' } } },
    ctx.readKey,
    ctx.readSession,
  );
  assert.is(scope.result._meta.problem.code, 'missing_scope');
  const unknown = await threeWays(ctx, {
    name: 'getTable',
    arguments: { tableId: ctx.tableId, colour: 'red' },
  });
  assert.equal(unknown.result._meta.problem.errors, [
    { path: 'colour', message: 'not an argument of this tool' },
  ]);
});

test('protocol errors are the SDK’s: an unknown tool, arguments that are not an object', async (ctx) => {
  const unknown = await threeWays(ctx, { name: 'noSuchTool', arguments: {} });
  assert.is(unknown.error.code, -32602);
  assert.match(unknown.error.message, 'noSuchTool');
  // Whatever the SDK makes of it (its request schema refuses it): the same three ways.
  const malformed = await threeWays(ctx, { name: 'getTable', arguments: 'tableId' });
  assert.type(malformed.error.code, 'number');
});

test('a plain call needs what every /mcp request needs: the key that opened the session', async (ctx) => {
  const call = {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'getTable', arguments: { tableId: ctx.tableId } },
  };
  const stranger = await post(ctx, ctx.readKey, ctx.session, call);
  assert.is(stranger.status, 404);
  assert.is(stranger.json.code, 'not_found');
  const sessionless = await post(ctx, ctx.key, {}, call);
  assert.is(sessionless.status, 400);
});

test.run();
