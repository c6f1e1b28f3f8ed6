import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import * as assert from 'uvu/assert';
import { bearer, bootstrapAccount } from '../../support/accounts.ts';
import { connectHttp, mcpSuite } from '../../support/mcp.ts';

/**
 * Issue 35 over Streamable HTTP: the SDK's client at the service's POST /mcp (a loopback port), then
 * what the transport itself promises: sessions bound to their key, GET's stream, DELETE's end, and
 * refusals answered as problems.
 */
const test = mcpSuite('mcp over Streamable HTTP', connectHttp);

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'raw', version: '1' },
  },
};
const BOTH = 'application/json, text/event-stream';

async function post(
  url: string,
  key: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
) {
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { accept: BOTH, 'content-type': 'application/json', ...(key ? bearer(key) : {}), ...headers },
    body: JSON.stringify(body),
  });
}

test('a session is its key’s: another key, or the session once ended, is a 404 problem', async (ctx) => {
  const opened = await post(ctx.t.url, ctx.key, initialize);
  assert.is(opened.status, 200);
  const session = opened.headers.get('mcp-session-id') as string;
  assert.match(session, /^mcp_/);
  assert.match(await opened.text(), '"serverInfo"');
  const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': LATEST_PROTOCOL_VERSION };
  const listed = await post(ctx.t.url, ctx.key, list, headers);
  assert.is(listed.status, 200);
  assert.match(await listed.text(), '"createTable"');

  const stranger = await post(ctx.t.url, ctx.other.key, list, headers);
  assert.is(stranger.status, 404);
  assert.is(stranger.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  assert.is((await stranger.json()).code, 'not_found');

  // The server-to-client stream opens; DELETE ends the session and closes it.
  const stream = await fetch(`${ctx.t.url}/mcp`, {
    headers: { accept: 'text/event-stream', ...bearer(ctx.key), ...headers },
  });
  assert.is(stream.status, 200);
  assert.match(String(stream.headers.get('content-type')), 'text/event-stream');
  const ended = await fetch(`${ctx.t.url}/mcp`, {
    method: 'DELETE',
    headers: { ...bearer(ctx.key), ...headers },
  });
  assert.is(ended.status, 204);
  await stream.body?.cancel();
  const after = await post(ctx.t.url, ctx.key, list, headers);
  assert.is(after.status, 404);
});

test('refusals of the transport are problems: no key, no session, a body that is not JSON-RPC', async (ctx) => {
  const anonymous = await post(ctx.t.url, undefined, initialize);
  assert.is(anonymous.status, 401);
  assert.is((await anonymous.json()).code, 'unauthorized');
  const sessionless = await post(ctx.t.url, ctx.key, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
  assert.is(sessionless.status, 400);
  assert.equal((await sessionless.json()).errors, [
    { path: 'headers.mcp-session-id', message: 'required after initialize' },
  ]);
  const garbage = await post(ctx.t.url, ctx.key, { hello: 'world' });
  assert.is(garbage.status, 400);
  assert.is((await garbage.json()).code, 'validation_failed');
  const opened = await post(ctx.t.url, ctx.key, initialize);
  const session = { 'mcp-session-id': opened.headers.get('mcp-session-id') as string };
  const future = await post(
    ctx.t.url,
    ctx.key,
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    {
      ...session,
      'mcp-protocol-version': '1999-01-01',
    },
  );
  assert.is(future.status, 400);
  assert.equal((await future.json()).errors, [
    { path: 'headers.mcp-protocol-version', message: 'not a supported version' },
  ]);
  // A client that takes JSON only gets one JSON answer rather than a stream.
  const json = await post(
    ctx.t.url,
    ctx.key,
    { jsonrpc: '2.0', id: 3, method: 'prompts/list' },
    {
      ...session,
      accept: 'application/json',
    },
  );
  assert.is(json.status, 200);
  assert.match(String(json.headers.get('content-type')), 'application/json');
  assert.ok(Array.isArray((await json.json()).result.prompts));
  const replayed = await post(ctx.t.url, ctx.key, initialize, { 'idempotency-key': 'k' });
  assert.is((await replayed.json()).code, 'idempotency_key_unsupported');
  const other = await bootstrapAccount(ctx.t.url);
  const apiKeyHeader = await post(ctx.t.url, undefined, initialize, { 'x-api-key': other.apiKey });
  assert.is(apiKeyHeader.status, 200, 'X-API-Key authenticates as well');
});

test.run();
