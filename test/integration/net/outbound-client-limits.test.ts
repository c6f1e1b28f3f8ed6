import * as assert from 'uvu/assert';
import { HostRateLimit } from '../../../src/net/host-rate-limit.ts';
import { clientOf, outboundClientSuite } from '../../support/outbound-client.ts';

/* The limits a request runs under: the body cap and the per-host rate limit. */
const test = outboundClientSuite('outbound HTTP client: body cap and rate limit');

test('a body past the cap is cut and reported as truncated', async (context) => {
  const client = clientOf(context);
  context.route = (_path, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('x'.repeat(3 * 1024 * 1024));
  };
  const big = await client.request({ url: `${context.server.url}/big`, method: 'GET' });
  assert.ok(big.ok);
  assert.is(big.response.truncated, true);
  assert.is(big.response.body.length, 1024 * 1024);
  context.route = (_path, res) => res.end('y'.repeat(100));
  const small = await client.request({ url: `${context.server.url}/small`, method: 'GET', maxBytes: 100 });
  assert.ok(small.ok && !small.response.truncated && small.response.body.toString() === 'y'.repeat(100));
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

test.run();
