import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BEARER_FAILURES_ALLOWED } from '../../../commands/content/cron-bearer.ts';
import {
  assertRateLimited,
  type ContentApp,
  cronHeaders,
  startContentApp,
} from '../../support/content-app.ts';
import { sampleArticles } from '../../support/content-samples.ts';

const test = suite('content sync: wrong bearers and forged request ids');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const withBearer = (ctx: ContentApp, method: 'GET' | 'POST', remoteAddress: string, authorization: string) =>
  ctx.app.inject({ method, url: ctx.syncPath, remoteAddress, headers: { authorization } });
const wrongBearer = (ctx: ContentApp, method: 'GET' | 'POST', remoteAddress: string) =>
  withBearer(ctx, method, remoteAddress, 'Bearer a-guess');
const namedSync = (ctx: ContentApp, remoteAddress: string, requestId?: string) =>
  ctx.app.inject({
    method: 'POST',
    url: ctx.syncPath,
    remoteAddress,
    headers: requestId ? { 'x-request-id': requestId } : {},
    payload: { slug: 'getting-started' },
  });
const cronSync = (ctx: ContentApp, remoteAddress: string) =>
  withBearer(ctx, 'GET', remoteAddress, cronHeaders.authorization);

test('failed bearer checks are limited per client on GET and POST alike: 429 with Retry-After', async () => {
  const ctx = await startContentApp({ articles: sampleArticles() });
  try {
    for (let i = 0; i < BEARER_FAILURES_ALLOWED; i++) {
      const res = await wrongBearer(ctx, i % 2 === 0 ? 'GET' : 'POST', '10.0.0.1');
      assert.is(res.statusCode, 401, `attempt ${i + 1}`);
    }
    for (const method of ['GET', 'POST'] as const) {
      assertRateLimited(await wrongBearer(ctx, method, '10.0.0.1'));
    }
    // Once locked, the right secret from that address is refused as well: a guess cannot be told
    // right from wrong by its answer.
    const right = await cronSync(ctx, '10.0.0.1');
    assert.is(right.statusCode, 429);
    assert.is(ctx.fake.requests.length, 0, 'nothing synced while locked');
    // The scheduler elsewhere is not locked out by someone else's failures.
    const scheduler = await cronSync(ctx, '10.0.0.2');
    assert.is(scheduler.statusCode, 200);
    assert.is(scheduler.json().synced, sampleArticles().length);
    // Neither the probe nor a named sync checks a bearer: both still answer the locked address.
    const probe = await ctx.app.inject({ method: 'GET', url: ctx.syncPath, remoteAddress: '10.0.0.1' });
    assert.equal(probe.json(), { ok: true });
    assert.is((await namedSync(ctx, '10.0.0.1')).statusCode, 200);
  } finally {
    await ctx.close();
  }
});

test('a correct bearer does not count as a failure', async () => {
  const ctx = await startContentApp({ articles: [] });
  try {
    for (let i = 0; i < BEARER_FAILURES_ALLOWED + 2; i++) {
      assert.is((await cronSync(ctx, '10.0.0.3')).statusCode, 200, `sync ${i + 1}`);
    }
    assert.is((await wrongBearer(ctx, 'GET', '10.0.0.3')).statusCode, 401);
  } finally {
    await ctx.close();
  }
});

const lastCorrelationId = async (ctx: ContentApp) =>
  (await ctx.articleEvents()).at(-1)?.metadata.correlationId;

test('X-Request-Id from a peer that is not a trusted proxy is ignored: the events get a fresh id', async () => {
  const ctx = await startContentApp({ articles: sampleArticles(), env: { TRUST_PROXY: 'false' } });
  try {
    const res = await namedSync(ctx, '203.0.113.9', 'forged-correlation-id');
    assert.is(res.statusCode, 200);
    const stored = await lastCorrelationId(ctx);
    assert.is.not(stored, 'forged-correlation-id');
    assert.match(String(stored), UUID);
    assert.is(res.headers['x-request-id'], stored);
  } finally {
    await ctx.close();
  }
});

test('X-Request-Id from a trusted proxy is kept; from any other peer it is not', async () => {
  const ctx = await startContentApp({
    articles: sampleArticles(),
    env: { TRUST_PROXY: '10.0.0.0/8, 192.168.1.1' },
  });
  try {
    const relayed = await namedSync(ctx, '10.1.2.3', 'relayed-id-1');
    assert.is(relayed.headers['x-request-id'], 'relayed-id-1');
    assert.is(await lastCorrelationId(ctx), 'relayed-id-1');
    // The same address written as an IPv4-mapped IPv6 peer is the same proxy.
    ctx.fake.upsert({ ...sampleArticles()[0]!, title: 'Changed once' });
    const mapped = await namedSync(ctx, '::ffff:192.168.1.1', 'relayed-id-2');
    assert.is(mapped.headers['x-request-id'], 'relayed-id-2');
    assert.is(await lastCorrelationId(ctx), 'relayed-id-2');

    ctx.fake.upsert({ ...sampleArticles()[0]!, title: 'Changed twice' });
    const direct = await namedSync(ctx, '192.168.1.2', 'forged-id');
    assert.is(direct.statusCode, 200);
    const stored = await lastCorrelationId(ctx);
    assert.match(String(stored), UUID);
    assert.is(direct.headers['x-request-id'], stored);
  } finally {
    await ctx.close();
  }
});

test.run();
