import * as assert from 'uvu/assert';
import { sendJson } from '../../support/loopback-http.ts';
import { clientOf, outboundClientSuite } from '../../support/outbound-client.ts';

/*
 * Where a request may go and how it gets there: the address policy (before connecting, after DNS, on every
 * redirect hop), redirects followed or not, and URLs or requests that are not valid.
 */
const test = outboundClientSuite('outbound HTTP client: targets and redirects');

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
    context.route = (path, res) => {
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
  context.route = (_path, res) =>
    res.writeHead(307, { location: `http://localhost:${context.server.port}/in` }).end();
  // The first hop is refused too: the deny list covers the test server itself.
  const result = await byName.request({ url: `${context.server.url}/start`, method: 'GET' });
  assert.ok(!result.ok && result.error.code === 'target_not_allowed');
  await client.close();
  await byName.close();
});

test('redirects are followed; 303 turns a POST into a GET; credentials stay at their origin', async (context) => {
  const client = clientOf(context);
  context.route = (path, res) => {
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
  context.route = (path, res) => {
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

test('crossOriginRedirects false: same-origin redirects followed, one to another port is cross_origin_redirect', async (context) => {
  const client = clientOf(context);
  context.route = (path, res) => {
    if (path === '/same') res.writeHead(307, { location: '/away' }).end();
    else if (path === '/away') res.writeHead(307, { location: `${context.other.url}/there` }).end();
    else sendJson(res, 200, {});
  };
  const result = await client.request({
    url: `${context.server.url}/same`,
    method: 'POST',
    body: 'token=s3cret',
    crossOriginRedirects: false,
  });
  assert.ok(!result.ok);
  assert.is(result.error.code, 'cross_origin_redirect');
  assert.is(result.meta.attempts, 1, 'not retried');
  assert.equal(
    context.server.received.map((r) => [r.url, r.body]),
    [
      ['/same', 'token=s3cret'],
      ['/away', 'token=s3cret'],
    ],
  );
  assert.is(context.other.received.length, 0);
  await client.close();
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

test('a redirect to something that is not a URL fails the request, never throws', async (context) => {
  const client = clientOf(context);
  context.route = (_path, res) => res.writeHead(302, { location: 'http://[not-an-ip/' }).end();
  const result = await client.request({ url: `${context.server.url}/x`, method: 'GET' });
  assert.ok(!result.ok && result.error.code === 'invalid_url', JSON.stringify(result));
  await client.close();
});

test.run();
