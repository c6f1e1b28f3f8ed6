import * as assert from 'uvu/assert';
import { sendJson, startLoopbackServer } from '../../support/loopback-http.ts';
import { clientOf, outboundClientSuite } from '../../support/outbound-client.ts';

/* What is retried and what is not: timeouts, Retry-After, gateway errors, refused connections, cancelling. */
const test = outboundClientSuite('outbound HTTP client: retries');

test('a server that does not answer in time is a timeout, not retried', async (context) => {
  const client = clientOf(context);
  context.route = () => {}; // never answers
  const result = await client.request({ url: `${context.server.url}/slow`, method: 'GET', timeoutMs: 100 });
  assert.ok(!result.ok);
  assert.is(result.error.code, 'timeout');
  assert.is(result.meta.attempts, 1);
  await client.close();
});

test('429 with Retry-After (seconds or a date) is retried after at least that long', async (context) => {
  const client = clientOf(context);
  context.route = (_path, res, index) => {
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
  context.route = (_path, res) => sendJson(res, 429, {}, { 'retry-after': '3600' });
  const result = await client.request({ url: `${context.server.url}/busy`, method: 'GET' });
  assert.ok(result.ok && result.response.status === 429);
  assert.is(result.meta.attempts, 1);
  await client.close();
});

test('502, 503 and 504 are retried up to maxAttempts with growing backoff; 500 and 404 are not', async (context) => {
  const client = clientOf(context);
  for (const status of [502, 503, 504]) {
    context.sleeps = [];
    context.route = (_path, res) => sendJson(res, status, {});
    const result = await client.request({ url: `${context.server.url}/gw`, method: 'GET' });
    assert.ok(result.ok && result.response.status === status);
    assert.is(result.meta.attempts, 3);
    // Equal jitter at random()=0.5: 3/4 of 250 ms, then of 500 ms.
    assert.equal(context.sleeps, [187.5, 375]);
  }
  for (const status of [500, 404]) {
    context.route = (_path, res) => sendJson(res, status, {});
    const result = await client.request({ url: `${context.server.url}/no`, method: 'GET' });
    assert.ok(result.ok && result.response.status === status && result.meta.attempts === 1);
  }
  context.route = (_path, res, index) => sendJson(res, index < 2 ? 502 : 200, {});
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
  context.route = () => {};
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
  context.route = (_path, res) => sendJson(res, 503, {});
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

test.run();
