/**
 * Issue 34, item 8: an http_request's URL on loopback, as a new user first tries it. A cell holding
 * `127.0.0.1:18080` in the host of the URL is a host and a port (it was percent-encoded like a path
 * segment and failed as invalid_url); an invalid URL shows the URL built for the row, secrets left as
 * their placeholders; a refused private target names the setting that allows it.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { httpRequestExecutor } from '../../../processes/runs/executors/http-request.ts';
import { type AddressPolicy, OutboundClient } from '../../../src/net/index.ts';
import { executorContext } from '../../support/executor-context.ts';
import { type LoopbackServer, sendJson, startLoopbackServer } from '../../support/loopback-http.ts';

interface Context {
  server: LoopbackServer;
  clients: OutboundClient[];
}
const test = suite<Context>('http_request URLs: each part of the URL encoded as it needs');

test.before(async (context) => {
  context.server = await startLoopbackServer((_req, res) => sendJson(res, 200, { ok: true }));
  context.clients = [];
});
test.after(async ({ server, clients }) => {
  await server.close();
  await Promise.all(clients.map((c) => c.close()));
});
test.before.each((context) => {
  context.server.received.length = 0;
});

function run(context: Context, url: string, cells: Record<string, unknown>, options: Extra = {}) {
  const client = new OutboundClient({
    policy: options.policy ?? { allowPrivateNetwork: true },
    rateLimit: { perSecond: 1_000_000 },
    retry: { random: () => 0.5, sleep: async () => {} },
  });
  context.clients.push(client);
  return httpRequestExecutor(client)(
    executorContext({
      config: { provider: 'http_request', url, method: 'GET', timeoutSeconds: 30 },
      cells,
      secrets: options.secrets,
    }),
  );
}
type Extra = { policy?: AddressPolicy; secrets?: Record<string, string> };

test('a cell holding host:port in the host is that host and port; path and query values stay encoded', async (context) => {
  const target = `127.0.0.1:${context.server.port}`;
  const outcome = await run(context, 'http://{{target}}/find/{{name}}?q={{q}}#{{f}}', {
    target,
    name: '../admin',
    q: 'a&b=c',
    f: 'x y',
  });
  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.is(context.server.received[0]?.url, '/find/..%2Fadmin?q=a%26b%3Dc');
  assert.is(context.server.received[0]?.headers.host, target);
});

test('a value in the host cannot move the host: / ? # @ are encoded, and the row is invalid_url', async (context) => {
  const port = context.server.port;
  for (const sub of [
    `127.0.0.1:${port}/`,
    `127.0.0.1:${port}?`,
    `127.0.0.1:${port}#`,
    `x@127.0.0.1:${port}`,
  ]) {
    const outcome = await run(context, 'http://{{sub}}.example.test/x', { sub });
    assert.ok(!outcome.ok, sub);
    assert.is(outcome.error.code, 'invalid_url', sub);
  }
  assert.is(context.server.received.length, 0, 'nothing was sent');
});

test('invalid_url shows the URL built for the row, each secret as its placeholder', async (context) => {
  const outcome = await run(
    context,
    'http://{{host}}/v1/{{secrets.token}}?key={{secrets.token}}&q={{q}}',
    { host: 'not a host', q: 'a b' },
    { secrets: { token: 'TOPSECRET' } },
  );
  assert.ok(!outcome.ok);
  assert.is(outcome.error.code, 'invalid_url');
  assert.is(
    outcome.error.message,
    'the URL built for this row is not an absolute http(s) URL: ' +
      'http://not%20a%20host/v1/{{secrets.token}}?key={{secrets.token}}&q=a%20b',
  );
  assert.not.match(outcome.error.message, 'TOPSECRET');

  const empty = await run(context, 'http://{{host}}/', {});
  assert.ok(!empty.ok);
  assert.is(empty.error.message, 'the URL built for this row is not an absolute http(s) URL: http:///');
});

test('a loopback target refused by the default policy names ALLOW_PRIVATE_NETWORK_TARGETS', async (context) => {
  const policy = { allowPrivateNetwork: false };
  const literal = await run(
    context,
    'http://{{target}}/',
    { target: `127.0.0.1:${context.server.port}` },
    { policy },
  );
  assert.ok(!literal.ok);
  assert.is(literal.error.code, 'target_not_allowed');
  assert.match(literal.error.message, 'ALLOW_PRIVATE_NETWORK_TARGETS=true');
  // A name that resolves to loopback is refused by the connection's lookup: the same words.
  const named = await run(context, `http://localhost:${context.server.port}/`, {}, { policy });
  assert.ok(!named.ok);
  assert.is(named.error.code, 'target_not_allowed');
  assert.match(named.error.message, 'ALLOW_PRIVATE_NETWORK_TARGETS=true');
  assert.is(context.server.received.length, 0);
});

test.run();
