import type { ServerResponse } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { httpRequestExecutor } from '../../../processes/runs/executors/http-request.ts';
import { type AddressPolicy, OutboundClient } from '../../../src/net/index.ts';
import { executorContext } from '../../support/executor-context.ts';
import { type LoopbackServer, sendJson, startLoopbackServer } from '../../support/loopback-http.ts';

interface Context {
  server: LoopbackServer;
  sleeps: number[];
  clients: OutboundClient[];
}
const test = suite<Context>('http_request executor');

let respond: (res: ServerResponse, index: number, path: string) => void = () => {};

test.before(async (context) => {
  context.server = await startLoopbackServer((req, res, index) => respond(res, index, req.url));
  context.clients = [];
});
test.after(async ({ server, clients }) => {
  await server.close();
  await Promise.all(clients.map((c) => c.close()));
});
test.before.each((context) => {
  context.server.received.length = 0;
  context.sleeps = [];
  respond = (res) => sendJson(res, 200, { ok: true });
});

/** The executor over a client that may call loopback (as with ALLOW_PRIVATE_NETWORK_TARGETS=true), waits recorded. */
function executor(context: Context, policy: AddressPolicy = { allowPrivateNetwork: true }) {
  const client = new OutboundClient({
    policy,
    rateLimit: { perSecond: 1_000_000 },
    retry: {
      random: () => 0.5,
      sleep: async (ms) => {
        context.sleeps.push(ms);
      },
    },
  });
  context.clients.push(client);
  return httpRequestExecutor(client);
}

const config = (server: LoopbackServer, extra: Record<string, unknown> = {}) => ({
  provider: 'http_request',
  url: `${server.url}/lookup`,
  method: 'GET',
  timeoutSeconds: 30,
  ...extra,
});

test('url placeholders are URL-encoded; a leading placeholder is the base, as it is', async (context) => {
  const outcome = await executor(context)(
    executorContext({
      config: config(context.server, { url: '{{secrets.base}}/find/{{name}}?q={{query}}&n={{n}}' }),
      cells: { name: '../admin', query: 'a&b=c d#e', n: 7 },
      secrets: { base: context.server.url },
    }),
  );
  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.is(context.server.received[0]?.url, '/find/..%2Fadmin?q=a%26b%3Dc%20d%23e&n=7');
});

test('a JSON body is rendered per string value: quotes and newlines cannot break it', async (context) => {
  const body = {
    name: '{{name}}',
    greeting: 'Hello "{{name}}"!',
    count: '{{count}}',
    company: '{{company}}',
    token: '{{secrets.token}}',
  };
  const cells = { name: 'O"Neil\n}{', count: 3, company: { domain: 'x.test' } };
  const outcome = await executor(context)(
    executorContext({
      config: config(context.server, { method: 'POST', body }),
      cells,
      secrets: { token: 'tok' },
    }),
  );
  assert.ok(outcome.ok);
  const [received] = context.server.received;
  assert.is(received?.headers['content-type'], 'application/json');
  assert.equal(JSON.parse(received!.body), {
    name: 'O"Neil\n}{',
    greeting: 'Hello "O"Neil\n}{"!',
    count: 3,
    company: { domain: 'x.test' },
    token: 'tok',
  });
});

test('a string body is raw; headers take secrets; the Idempotency-Key is the run and row', async (context) => {
  const outcome = await executor(context)(
    executorContext({
      config: config(context.server, {
        method: 'PUT',
        headers: {
          'Content-Type': 'text/plain',
          Authorization: 'Bearer {{secrets.api_key}}',
          'Idempotency-Key': 'mine',
          'X-Row': '{{name}}',
        },
        body: 'name={{name}}&raw={{raw}}',
      }),
      cells: { name: 'A B', raw: '{"x":1}&' },
      secrets: { api_key: 'sk-123' },
    }),
  );
  assert.ok(outcome.ok);
  const [received] = context.server.received;
  assert.is(received?.method, 'PUT');
  assert.is(received?.body, 'name=A B&raw={"x":1}&');
  assert.is(received?.headers.authorization, 'Bearer sk-123');
  assert.is(received?.headers['x-row'], 'A B');
  assert.is(received?.headers['idempotency-key'], 'run_test:row_source1');
});

test('a missing secret fails the row with secret_not_found and sends nothing', async (context) => {
  for (const extra of [
    { url: `${context.server.url}/{{secrets.path}}` },
    { headers: { 'X-Key': '{{secrets.nope}}' } },
    { method: 'POST', body: { k: '{{secrets.nope}}' } },
  ]) {
    const outcome = await executor(context)(executorContext({ config: config(context.server, extra) }));
    assert.ok(!outcome.ok);
    assert.is(outcome.error.code, 'secret_not_found');
    assert.equal(outcome.meta, { durationMs: 0, attempts: 0 });
  }
  assert.is(context.server.received.length, 0);
});

test('JSON answers are parsed, text kept as text, an empty answer is null', async (context) => {
  const run = () => executor(context)(executorContext({ config: config(context.server) }));
  const answer = async () => {
    const outcome = await run();
    return outcome.ok ? outcome.value : outcome.error;
  };
  respond = (res) => sendJson(res, 200, { company: { size: 12 } });
  assert.equal(await answer(), { company: { size: 12 } });
  respond = (res) => res.writeHead(200, { 'content-type': 'application/problem+json' }).end('{"a":1}');
  assert.equal(await answer(), { a: 1 });
  respond = (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<b>hi</b>');
  const text = await run();
  assert.ok(
    text.ok && text.value === '<b>hi</b>' && text.meta.httpStatus === 200 && text.meta.attempts === 1,
  );
  respond = (res) => res.writeHead(204).end();
  const empty = await run();
  assert.ok(empty.ok && empty.value === null && empty.meta.httpStatus === 204);
  respond = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"cut');
  const broken = await run();
  assert.ok(!broken.ok && broken.error.code === 'invalid_response');
});

test('a non-2xx is http_error carrying the status; 404 is not retried, 502 is, 3 attempts in all', async (context) => {
  respond = (res) => sendJson(res, 404, { error: 'no' });
  const missing = await executor(context)(executorContext({ config: config(context.server) }));
  assert.ok(!missing.ok);
  assert.is(missing.error.code, 'http_error');
  assert.match(missing.error.message, /answered HTTP 404/);
  assert.is(missing.meta.httpStatus, 404);
  assert.is(missing.meta.attempts, 1);

  respond = (res) => sendJson(res, 502, {});
  const gateway = await executor(context)(executorContext({ config: config(context.server) }));
  assert.ok(!gateway.ok);
  assert.is(gateway.error.code, 'http_error');
  assert.match(gateway.error.message, /502/);
  assert.equal([gateway.meta.httpStatus, gateway.meta.attempts], [502, 3]);
  assert.is(context.server.received.length, 4);
});

test('429 with Retry-After, then success: the row succeeds after waiting what the server asked', async (context) => {
  respond = (res, index) =>
    index === 0 ? sendJson(res, 429, {}, { 'retry-after': '3' }) : sendJson(res, 200, { at: index });
  const outcome = await executor(context)(executorContext({ config: config(context.server) }));
  assert.ok(outcome.ok);
  assert.equal(outcome.value, { at: 1 });
  assert.is(outcome.meta.attempts, 2);
  assert.equal(context.sleeps, [3000]);
});

test('an answer larger than 1 MB is response_too_large', async (context) => {
  respond = (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('z'.repeat(1024 * 1024 + 1));
  const outcome = await executor(context)(executorContext({ config: config(context.server) }));
  assert.ok(!outcome.ok);
  assert.is(outcome.error.code, 'response_too_large');
  respond = (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('z'.repeat(1024 * 1024));
  const exact = await executor(context)(executorContext({ config: config(context.server) }));
  assert.ok(exact.ok && (exact.value as string).length === 1024 * 1024);
});

test('timeoutSeconds bounds the call: a server that never answers is a timeout', async (context) => {
  respond = () => {};
  const outcome = await executor(context)(
    executorContext({ config: config(context.server, { timeoutSeconds: 1 }) }),
  );
  assert.ok(!outcome.ok);
  assert.is(outcome.error.code, 'timeout');
  assert.is(outcome.meta.attempts, 1);
});

test('the SSRF guard: loopback refused by the default policy; a redirect to a denied address refused', async (context) => {
  const direct = await executor(context, { allowPrivateNetwork: false })(
    executorContext({ config: config(context.server) }),
  );
  assert.ok(!direct.ok);
  assert.is(direct.error.code, 'target_not_allowed');
  assert.is(context.server.received.length, 0);

  respond = (res) =>
    res.writeHead(302, { location: `http://127.0.0.2:${context.server.port}/internal` }).end();
  const redirected = await executor(context, { allowPrivateNetwork: true, deny: ['127.0.0.2'] })(
    executorContext({ config: config(context.server) }),
  );
  assert.ok(!redirected.ok);
  assert.is(redirected.error.code, 'target_not_allowed');
  assert.match(redirected.error.message, /127\.0\.0\.2 is denied/);
  assert.equal(
    context.server.received.map((r) => r.url),
    ['/lookup'],
  );
});

test('the run being stopped aborts the call', async (context) => {
  respond = () => {};
  const controller = new AbortController();
  const pending = executor(context)(
    executorContext({ config: config(context.server), signal: controller.signal }),
  );
  setTimeout(() => controller.abort(), 10);
  const outcome = await pending;
  assert.ok(!outcome.ok && outcome.error.code === 'aborted');
});

test('a request carrying a secret follows no redirect to another origin: the body, a header or the URL', async (context) => {
  const elsewhere = await startLoopbackServer((_req, res) => sendJson(res, 200, { there: true }));
  try {
    // Another port of the same loopback address is another origin.
    respond = (res) => res.writeHead(307, { location: `${elsewhere.url}/moved` }).end();
    const secret = 'very-secret-token';
    const carriers: Record<string, Record<string, unknown>> = {
      body: { method: 'POST', body: { token: '{{secrets.token}}', row: '{{name}}' } },
      'string body': { method: 'POST', body: 'token={{secrets.token}}&row={{name}}' },
      header: { headers: { 'X-Api-Key': '{{secrets.token}}', 'X-Row': '{{name}}' } },
      url: { url: `${context.server.url}/lookup?key={{secrets.token}}&row={{name}}` },
    };
    for (const [where, extra] of Object.entries(carriers)) {
      context.server.received.length = 0;
      const outcome = await executor(context)(
        executorContext({
          config: config(context.server, extra),
          cells: { name: 'Ada' },
          secrets: { token: secret },
        }),
      );
      assert.ok(!outcome.ok, where);
      assert.is(outcome.error.code, 'cross_origin_redirect', where);
      assert.match(
        outcome.error.message,
        `answered HTTP 307 with a redirect to another origin (${elsewhere.url})`,
      );
      assert.not.match(outcome.error.message, secret);
      // Found by the secret: an aborted call of an earlier test may reach the server late.
      const sent = context.server.received.filter((r) => JSON.stringify(r).includes(secret));
      assert.is(sent.length, 1, `${where}: the first origin got it, once (not retried)`);
      assert.equal(elsewhere.received, [], `${where}: the other origin received nothing`);
    }
    // With no secret in it, the same request follows the redirect.
    const plain = await executor(context)(
      executorContext({
        config: config(context.server, {
          method: 'POST',
          body: { row: '{{name}}' },
          headers: { 'X-Row': '{{name}}' },
        }),
        cells: { name: 'Ada' },
      }),
    );
    assert.ok(plain.ok, JSON.stringify(plain));
    assert.equal(plain.value, { there: true });
    const [moved] = elsewhere.received;
    assert.equal(JSON.parse(moved!.body), { row: 'Ada' });
    assert.is(moved?.headers['x-row'], 'Ada');
    assert.is(moved?.headers['idempotency-key'], 'run_test:row_source1');
  } finally {
    await elsewhere.close();
  }
});

test('a request carrying a secret still follows redirects within its origin', async (context) => {
  respond = (res, _index, path) =>
    path === '/moved' ? sendJson(res, 200, { here: true }) : res.writeHead(307, { location: '/moved' }).end();
  const outcome = await executor(context)(
    executorContext({
      config: config(context.server, { method: 'POST', body: { token: '{{secrets.token}}' } }),
      secrets: { token: 'very-secret-token' },
    }),
  );
  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.equal(outcome.value, { here: true });
  const moved = context.server.received.find((r) => r.url === '/moved');
  assert.equal(JSON.parse(moved!.body), { token: 'very-secret-token' });
});

test.run();
