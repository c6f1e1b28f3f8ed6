import { connect } from 'node:net';
import type { InjectOptions } from 'fastify';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { service } from '../../../app/modules.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import type { RouteModule } from '../../../src/http/routes.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { serveApp, startTestApp, type TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';

const REQUEST_TIMEOUT_MS = 500;
/** How long a test waits for an answer that must come: the configured time plus a wide margin. */
const MARGIN_MS = 15_000;

const test = suite<{ t: TestApp; key: string }>('HTTP edge: timeouts and errors before routing');

test.before(async (ctx) => {
  ctx.t = await startTestApp({
    projections: service.projections,
    routes: service.routes,
    authenticator: createAuthenticator,
    env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), KEEP_ALIVE_TIMEOUT_MS: '500' },
  });
  ctx.key = (await bootstrapAccount(ctx.t.app)).apiKey;
});
test.after(async (ctx) => {
  await ctx.t.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  // biome-ignore lint/suspicious/noExplicitAny: arbitrary JSON that tests pick apart
  body: any;
  /** Whether the server closed the connection (within MARGIN_MS). */
  closed: boolean;
}

/**
 * Writes `chunks` to a fresh connection (each after the previous `gap`), then reads until the server
 * closes it or MARGIN_MS passes. The first response on it, parsed.
 */
function exchange(url: string, chunks: readonly string[], gap?: () => Promise<void>): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    const done = (closed: boolean) => {
      clearTimeout(guard);
      socket.destroy();
      const [head = '', ...rest] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      const text = rest.join('\r\n\r\n');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, closed });
    };
    const guard = setTimeout(() => done(false), MARGIN_MS);
    socket.on('data', (data) => {
      received += data.toString();
    });
    socket.on('close', () => done(true));
    socket.on('error', reject);
    socket.on('connect', async () => {
      for (const [i, chunk] of chunks.entries()) {
        if (i > 0) await gap?.();
        socket.write(chunk);
      }
    });
  });
}

function assertProblem(
  res: { status: number; headers: Record<string, unknown>; body: Record<string, unknown> },
  status: number,
  code: string,
) {
  assert.is(res.status, status, JSON.stringify(res.body));
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.is(res.body.status, status);
  assert.is(res.body.code, code);
  assert.is(res.body.requestId, res.headers['x-request-id'], 'the request id is returned');
}

test('a body shorter than its Content-Length is a 408 problem, then the connection closes', async ({
  t,
  key,
}) => {
  const before = await call(t.app, 'GET', '/api/tables', { headers: bearer(key) });
  const short = (path: string, auth = '') =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n` +
    `${auth}\r\n{"name":"a`;
  // A public route, and one behind a key (authenticated before the body is read).
  for (const request of [
    short('/api/content/sync'),
    short('/api/tables', `Authorization: Bearer ${key}\r\n`),
  ]) {
    const res = await exchange(t.url, [request]);
    assertProblem(res, 408, 'request_timeout');
    assert.ok(res.closed, 'the connection is closed');
  }
  // Headers that never end, too.
  const headers = await exchange(t.url, ['GET /healthz HTTP/1.1\r\nHost: x\r\n']);
  assertProblem(headers, 408, 'request_timeout');
  assert.ok(headers.closed);
  assert.equal((await call(t.app, 'GET', '/api/tables', { headers: bearer(key) })).body, before.body);
});

test('an idle keep-alive connection is closed after KEEP_ALIVE_TIMEOUT_MS', async ({ t }) => {
  const res = await exchange(t.url, ['GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n']);
  assert.is(res.status, 200);
  assert.ok(res.closed, 'the idle connection is closed');
});

test("what Node's HTTP parser refuses is a problem: oversized headers 431, not HTTP 400", async ({ t }) => {
  const big = await exchange(t.url, [
    `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  ]);
  assertProblem(big, 431, 'headers_too_large');
  assert.ok(big.closed);
  const garbage = await exchange(t.url, ['HELLO THERE\r\n\r\n']);
  assertProblem(garbage, 400, 'bad_request');
  assert.ok(garbage.closed);
});

test('what fastify refuses itself is a problem, over a socket and through inject', async ({ t, key }) => {
  const close = 'Host: x\r\nConnection: close\r\n\r\n';
  const longSlug = `/blog/${'a'.repeat(300)}`;
  assertProblem(await exchange(t.url, [`GET ${longSlug} HTTP/1.1\r\n${close}`]), 414, 'uri_too_long');
  assertProblem(await exchange(t.url, [`GET /blog/%E0%A4%A HTTP/1.1\r\n${close}`]), 400, 'bad_request');
  const inject = (options: InjectOptions) =>
    t.app.inject(options).then((res) => ({ status: res.statusCode, headers: res.headers, body: res.json() }));
  assertProblem(await inject({ method: 'GET', url: longSlug }), 414, 'uri_too_long');
  assertProblem(await inject({ method: 'GET', url: '/blog/%E0%A4%A' }), 400, 'bad_request');
  const post = (headers: Record<string, string>, payload: string) =>
    inject({ method: 'POST', url: '/api/tables', headers: { ...bearer(key), ...headers }, payload });
  assertProblem(await post({ 'content-type': 'text/xml' }, '<name/>'), 415, 'unsupported_media_type');
  assertProblem(await post({ 'content-type': 'application/json' }, '{"name":'), 400, 'malformed_json');
  const huge = `{"name":"${'x'.repeat(1024 * 1024)}"}`;
  assertProblem(await post({ 'content-type': 'application/json' }, huge), 413, 'payload_too_large');
});

test('a request arriving while the app shuts down is a 503 problem', async ({ t }) => {
  let entered = () => {};
  const inside = new Promise<void>((resolve) => {
    entered = resolve;
  });
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const slow: RouteModule = (app) => {
    const schema = { response: { 200: z.object({ done: z.boolean() }) } };
    app.get('/test/slow', { config: { access: 'public' }, schema }, async () => {
      entered();
      await released;
      return { done: true };
    });
  };
  const served = await serveApp(t.db, { routes: [slow] });
  try {
    // One request holds the app open while it closes; another is under way on a second connection.
    const pending = fetch(`${served.url}/test/slow`);
    await inside;
    let closing: Promise<void> | undefined;
    const late = exchange(served.url, ['GET /healthz HTTP/1.1\r\nHost: x\r\n', '\r\n'], async () => {
      closing = served.close();
      await eventually('the server to stop listening', () => !served.app.server.listening);
    });
    const res = await late;
    assertProblem(res, 503, 'unavailable');
    assert.is(res.headers.connection, 'close');
    release();
    assert.is((await pending).status, 200, 'the request in flight still finishes');
    await closing;
  } finally {
    release();
    await served.close().catch(() => {});
  }
});

test.run();
