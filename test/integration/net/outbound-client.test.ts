import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HostRateLimit } from '../../../src/net/host-rate-limit.ts';
import { type AddressPolicy, OutboundClient, type OutboundClientOptions } from '../../../src/net/index.ts';
import { type LoopbackServer, sendJson, startLoopbackServer } from '../../support/loopback-http.ts';

const OPEN: AddressPolicy = { allowPrivateNetwork: true };

interface Context {
  server: LoopbackServer;
  other: LoopbackServer;
  sleeps: number[];
}
const test = suite<Context>('outbound HTTP client');

let route: (path: string, res: import('node:http').ServerResponse, index: number) => void = () => {};

test.before(async (context) => {
  context.server = await startLoopbackServer((req, res, index) => route(req.url, res, index));
  context.other = await startLoopbackServer((_req, res) => sendJson(res, 200, { other: true }));
});
test.after(async ({ server, other }) => {
  await server.close();
  await other.close();
});
test.before.each((context) => {
  context.server.received.length = 0;
  context.other.received.length = 0;
  context.sleeps = [];
  route = (_path, res) => sendJson(res, 200, { hello: 'world' });
});

/** A client whose backoff waits are recorded instead of slept, with a rate limit tests never reach. */
const clientOf = (context: Context, options: Partial<OutboundClientOptions> = {}) =>
  new OutboundClient({
    policy: OPEN,
    rateLimit: { perSecond: 1_000_000 },
    retry: {
      random: () => 0.5,
      sleep: async (ms) => {
        context.sleeps.push(ms);
      },
    },
    ...options,
  });

test('a direct request to a loopback address is refused by the default policy, before connecting', async (context) => {
  const client = clientOf(context, { policy: { allowPrivateNetwork: false } });
  for (const url of [`${context.server.url}/x`, `http://[::ffff:127.0.0.1]:${context.server.port}/x`]) {
    const result = await client.request({ url, method: 'GET' });
    assert.ok(!result.ok && result.error.code === 'target_not_allowed', url);
    assert.is(result.meta.attempts, 1);
  }
  assert.is(context.server.received.length, 0);
  await client.close();
});

test('a host name resolving to loopback is refused by the default policy (checked after DNS)', async (context) => {
  const client = clientOf(context, { policy: { allowPrivateNetwork: false } });
  const result = await client.request({ url: `http://localhost:${context.server.port}/x`, method: 'GET' });
  assert.ok(!result.ok);
  assert.is(result.error.code, 'target_not_allowed');
  assert.match(result.error.message, /localhost resolves to a refused target/);
  assert.is(result.meta.attempts, 1, 'a refusal is not retried');
  assert.is(context.server.received.length, 0);
  await client.close();
});

test('a redirect to a refused address is not followed (literal IP and host name)', async (context) => {
  const client = clientOf(context, { policy: { allowPrivateNetwork: true, deny: ['127.0.0.2', '::1'] } });
  for (const target of [
    `http://127.0.0.2:${context.server.port}/in`,
    `http://[::1]:${context.server.port}/in`,
  ]) {
    route = (path, res) => {
      if (path === '/start') res.writeHead(302, { location: target }).end();
      else sendJson(res, 200, { reached: true });
    };
    const result = await client.request({ url: `${context.server.url}/start`, method: 'GET' });
    assert.ok(!result.ok);
    assert.is(result.error.code, 'target_not_allowed', target);
    assert.equal(
      context.server.received.map((r) => r.url),
      ['/start'],
    );
    context.server.received.length = 0;
  }
  const byName = clientOf(context, { policy: { allowPrivateNetwork: true, deny: ['127.0.0.0/8', '::1'] } });
  route = (_path, res) =>
    res.writeHead(307, { location: `http://localhost:${context.server.port}/in` }).end();
  // The first hop is refused too: the deny list covers the test server itself.
  const result = await byName.request({ url: `${context.server.url}/start`, method: 'GET' });
  assert.ok(!result.ok && result.error.code === 'target_not_allowed');
  await client.close();
  await byName.close();
});

test('redirects are followed; 303 turns a POST into a GET; credentials stay at their origin', async (context) => {
  const client = clientOf(context);
  route = (path, res) => {
    if (path === '/a') res.writeHead(301, { location: '/b' }).end();
    else if (path === '/b') res.writeHead(303, { location: `${context.other.url}/c` }).end();
    else sendJson(res, 404, {});
  };
  const result = await client.request({
    url: `${context.server.url}/a`,
    method: 'POST',
    headers: {
      authorization: 'Bearer s3cret',
      'x-api-key': 'k3y',
      'content-type': 'application/json',
      'idempotency-key': 'run:row',
    },
    body: '{"a":1}',
    sensitiveHeaders: ['X-Api-Key'],
  });
  assert.ok(result.ok);
  assert.is(result.response.status, 200);
  assert.is(result.response.url, `${context.other.url}/c`);
  assert.is(result.meta.redirects, 2);
  const [first, second] = context.server.received;
  assert.is(first?.method, 'POST');
  // 301 after a POST: a GET, as browsers do; the same origin keeps the credentials.
  assert.is(second?.method, 'GET');
  assert.is(second?.headers.authorization, 'Bearer s3cret');
  const [third] = context.other.received;
  assert.is(third?.method, 'GET');
  assert.is(third?.body, '');
  assert.is(third?.headers.authorization, undefined);
  assert.is(third?.headers['x-api-key'], undefined);
  assert.is(third?.headers['idempotency-key'], 'run:row');
  await client.close();
});

test('307 keeps the method and body; followRedirects false answers the 3xx; too many redirects fail', async (context) => {
  const client = clientOf(context);
  route = (path, res) => {
    if (path === '/keep') res.writeHead(307, { location: '/kept' }).end();
    else if (path.startsWith('/loop')) res.writeHead(302, { location: '/loop' }).end();
    else sendJson(res, 200, {});
  };
  const kept = await client.request({ url: `${context.server.url}/keep`, method: 'PUT', body: 'x=1' });
  assert.ok(kept.ok);
  assert.equal(
    context.server.received.map((r) => [r.method, r.url, r.body]),
    [
      ['PUT', '/keep', 'x=1'],
      ['PUT', '/kept', 'x=1'],
    ],
  );
  const manual = await client.request({
    url: `${context.server.url}/keep`,
    method: 'GET',
    followRedirects: false,
  });
  assert.ok(manual.ok);
  assert.is(manual.response.status, 307);
  assert.is(manual.response.headers.location, '/kept');
  const loop = await client.request({ url: `${context.server.url}/loop`, method: 'GET', maxRedirects: 3 });
  assert.ok(!loop.ok && loop.error.code === 'too_many_redirects');
  await client.close();
});

test('a body past the cap is cut and reported as truncated', async (context) => {
  const client = clientOf(context);
  route = (_path, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('x'.repeat(3 * 1024 * 1024));
  };
  const big = await client.request({ url: `${context.server.url}/big`, method: 'GET' });
  assert.ok(big.ok);
  assert.is(big.response.truncated, true);
  assert.is(big.response.body.length, 1024 * 1024);
  route = (_path, res) => res.end('y'.repeat(100));
  const small = await client.request({ url: `${context.server.url}/small`, method: 'GET', maxBytes: 100 });
  assert.ok(small.ok && !small.response.truncated && small.response.body.toString() === 'y'.repeat(100));
  await client.close();
});

test('a server that does not answer in time is a timeout, not retried', async (context) => {
  const client = clientOf(context);
  route = () => {}; // never answers
  const result = await client.request({ url: `${context.server.url}/slow`, method: 'GET', timeoutMs: 100 });
  assert.ok(!result.ok);
  assert.is(result.error.code, 'timeout');
  assert.is(result.meta.attempts, 1);
  await client.close();
});

test('429 with Retry-After (seconds or a date) is retried after at least that long', async (context) => {
  const client = clientOf(context);
  route = (_path, res, index) => {
    if (index === 0) sendJson(res, 429, {}, { 'retry-after': '2' });
    else if (index === 1)
      sendJson(res, 429, {}, { 'retry-after': new Date(Date.now() + 20_000).toUTCString() });
    else sendJson(res, 200, { done: true });
  };
  const result = await client.request({ url: `${context.server.url}/busy`, method: 'GET' });
  assert.ok(result.ok);
  assert.is(result.response.status, 200);
  assert.equal(JSON.parse(result.response.body.toString()), { done: true });
  assert.is(result.meta.attempts, 3);
  assert.is(context.sleeps.length, 2);
  assert.is(context.sleeps[0], 2000);
  // An HTTP date has one-second resolution: the wait is what is left of the 20 s.
  assert.ok(context.sleeps[1]! > 18_000 && context.sleeps[1]! <= 20_000, String(context.sleeps[1]));
  assert.is(result.meta.waitedMs, context.sleeps[0]! + context.sleeps[1]!);
  await client.close();
});

test('a Retry-After beyond the cap ends the retries: the 429 stands', async (context) => {
  const client = clientOf(context);
  route = (_path, res) => sendJson(res, 429, {}, { 'retry-after': '3600' });
  const result = await client.request({ url: `${context.server.url}/busy`, method: 'GET' });
  assert.ok(result.ok && result.response.status === 429);
  assert.is(result.meta.attempts, 1);
  await client.close();
});

test('502, 503 and 504 are retried up to maxAttempts with growing backoff; 500 and 404 are not', async (context) => {
  const client = clientOf(context);
  for (const status of [502, 503, 504]) {
    context.sleeps = [];
    route = (_path, res) => sendJson(res, status, {});
    const result = await client.request({ url: `${context.server.url}/gw`, method: 'GET' });
    assert.ok(result.ok && result.response.status === status);
    assert.is(result.meta.attempts, 3);
    // Equal jitter at random()=0.5: 3/4 of 250 ms, then of 500 ms.
    assert.equal(context.sleeps, [187.5, 375]);
  }
  for (const status of [500, 404]) {
    route = (_path, res) => sendJson(res, status, {});
    const result = await client.request({ url: `${context.server.url}/no`, method: 'GET' });
    assert.ok(result.ok && result.response.status === status && result.meta.attempts === 1);
  }
  route = (_path, res, index) => sendJson(res, index < 2 ? 502 : 200, {});
  context.server.received.length = 0;
  const recovered = await client.request({ url: `${context.server.url}/gw`, method: 'GET', maxAttempts: 5 });
  assert.ok(recovered.ok && recovered.response.status === 200 && recovered.meta.attempts === 3);
  await client.close();
});

test('a refused connection is retried, then fails as connection_failed', async (context) => {
  const closed = await startLoopbackServer(() => {});
  await closed.close();
  const client = clientOf(context);
  const result = await client.request({ url: `${closed.url}/x`, method: 'GET' });
  assert.ok(!result.ok);
  assert.is(result.error.code, 'connection_failed');
  assert.match(result.error.message, /ECONNREFUSED/);
  assert.is(result.meta.attempts, 3);
  await client.close();
});

test('a cancelled request stops: during the call and during the backoff', async (context) => {
  const client = clientOf(context);
  route = () => {};
  const controller = new AbortController();
  const pending = client.request({
    url: `${context.server.url}/slow`,
    method: 'GET',
    signal: controller.signal,
  });
  setTimeout(() => controller.abort(), 20);
  const result = await pending;
  assert.ok(!result.ok && result.error.code === 'aborted');

  const backoff = new AbortController();
  const waiting = clientOf(context, {
    retry: { sleep: () => new Promise(() => backoff.abort()) },
  });
  route = (_path, res) => sendJson(res, 503, {});
  const stopped = await waiting.request({
    url: `${context.server.url}/x`,
    method: 'GET',
    signal: backoff.signal,
  });
  assert.ok(!stopped.ok && stopped.error.code === 'aborted');
  assert.is(stopped.meta.attempts, 1);
  await client.close();
  await waiting.close();
});

test('not an http(s) URL, or not valid HTTP: a failed result, never a throw', async (context) => {
  const client = clientOf(context);
  for (const url of ['ftp://example.com/x', 'not a url', 'file:///etc/passwd']) {
    const result = await client.request({ url, method: 'GET' });
    assert.ok(!result.ok && result.error.code === 'invalid_url', url);
  }
  const bad = await client.request({
    url: `${context.server.url}/x`,
    method: 'GET',
    headers: { 'x-split': 'a\r\nInjected: 1' },
  });
  assert.ok(!bad.ok && bad.error.code === 'invalid_request');
  await client.close();
});

test('the per-host rate limit spaces requests to one host', async (context) => {
  const waits: number[] = [];
  let now = 0;
  const rateLimit = new HostRateLimit({
    perSecond: 1,
    burst: 1,
    now: () => now,
    sleep: async (ms) => {
      waits.push(ms);
    },
  });
  const client = clientOf(context, { rateLimit });
  const results = await Promise.all(
    [1, 2, 3].map(() => client.request({ url: `${context.server.url}/x`, method: 'GET' })),
  );
  assert.equal(waits, [1000, 2000]);
  assert.equal(
    results.map((r) => r.meta.waitedMs),
    [0, 1000, 2000],
  );
  now += 60_000;
  await client.request({ url: `${context.other.url}/x`, method: 'GET' });
  assert.equal(waits, [1000, 2000], 'another host has its own bucket');
  await client.close();
});

test('waiting for the host rate limit does not eat into the timeout', async (context) => {
  // The second request waits 1.5 s for its token (really), longer than its 1 s timeout.
  const rateLimit = new HostRateLimit({ perSecond: 1 / 1.5, burst: 1 });
  const client = clientOf(context, { rateLimit });
  const first = await client.request({ url: `${context.server.url}/x`, method: 'GET', timeoutMs: 1000 });
  const second = await client.request({ url: `${context.server.url}/x`, method: 'GET', timeoutMs: 1000 });
  assert.ok(first.ok && second.ok, JSON.stringify(second));
  assert.ok(second.meta.waitedMs > 0, 'the second request waited for its token');
  await client.close();
});

test('a redirect to something that is not a URL fails the request, never throws', async (context) => {
  const client = clientOf(context);
  route = (_path, res) => res.writeHead(302, { location: 'http://[not-an-ip/' }).end();
  const result = await client.request({ url: `${context.server.url}/x`, method: 'GET' });
  assert.ok(!result.ok && result.error.code === 'invalid_url', JSON.stringify(result));
  await client.close();
});

test.run();
