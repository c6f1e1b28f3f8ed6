import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { syncRoutes } from '../../../commands/content/sync-articles.ts';
import { siteContentProjection } from '../../../projections/content/site-content.ts';
import type { RouteModule } from '../../../src/http/routes.ts';
import { startTestApp } from '../../support/app.ts';
import { assertRateLimited, cronHeaders, startContentApp } from '../../support/content-app.ts';
import { sampleArticles } from '../../support/content-samples.ts';

const test = suite('content sync: rate limit, configuration, body parsing');

test('public POSTs are rate limited per client: 429 rate_limited with Retry-After; the cron bearer is not', async () => {
  const ctx = await startContentApp({ articles: sampleArticles(), env: { SYNC_RATE_LIMIT: '3' } });
  try {
    const probe = () => ctx.app.inject({ method: 'POST', url: ctx.syncPath, remoteAddress: '10.0.0.1' });
    for (let i = 0; i < 3; i++) assert.is((await probe()).statusCode, 200);
    assertRateLimited(await probe());
    const named = await ctx.app.inject({
      method: 'POST',
      url: ctx.syncPath,
      remoteAddress: '10.0.0.1',
      payload: { slug: 'getting-started' },
    });
    assert.is(named.statusCode, 429);
    assert.is(ctx.fake.requests.length, 0);
    // Another address has its own budget; the scheduler with the cron secret is exempt; GET is not limited.
    const other = await ctx.app.inject({ method: 'POST', url: ctx.syncPath, remoteAddress: '10.0.0.2' });
    assert.is(other.statusCode, 200);
    const cron = await ctx.app.inject({
      method: 'POST',
      url: ctx.syncPath,
      remoteAddress: '10.0.0.1',
      headers: cronHeaders,
    });
    assert.is(cron.statusCode, 200);
    assert.is(cron.json().synced, sampleArticles().length);
    const get = await ctx.app.inject({ method: 'GET', url: ctx.syncPath, remoteAddress: '10.0.0.1' });
    assert.is(get.statusCode, 200);
  } finally {
    await ctx.close();
  }
});

test('without CRON_SECRET a full sync is refused (never open); the probe still answers', async () => {
  const ctx = await startContentApp({ articles: sampleArticles(), env: { CRON_SECRET: '' } });
  try {
    for (const authorization of ['Bearer ', 'Bearer test-cron-secret', 'Bearer undefined']) {
      const res = await ctx.app.inject({ method: 'GET', url: ctx.syncPath, headers: { authorization } });
      assert.is(res.statusCode, 401, authorization);
    }
    assert.equal((await ctx.app.inject({ method: 'GET', url: ctx.syncPath })).json(), { ok: true });
    assert.is(ctx.fake.requests.length, 0);
  } finally {
    await ctx.close();
  }
});

/** A plain JSON route beside the sync endpoint: it must keep Fastify's own JSON parser. */
const echoRoute: RouteModule = (app) => {
  app.post(
    '/echo',
    {
      config: { access: 'public' },
      schema: { body: z.object({ a: z.number() }), response: { 200: z.object({ a: z.number() }) } },
    },
    async (request) => request.body,
  );
};

test('CONTENT_PROVIDER names the path; no CONTENT_API_URL means 503; other routes keep the JSON parser', async () => {
  const ctx = await startTestApp({
    projections: [siteContentProjection],
    routes: [syncRoutes(), echoRoute],
    env: { CONTENT_PROVIDER: 'acme', CRON_SECRET: 'c' },
  });
  try {
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/acme/sync' })).json(), { ok: true });
    assert.is((await ctx.app.inject({ method: 'GET', url: '/api/content/sync' })).statusCode, 404);
    const named = await ctx.app.inject({ method: 'POST', url: '/api/acme/sync', payload: { slug: 'a' } });
    assert.is(named.statusCode, 503);
    assert.match(named.json().detail, 'CONTENT_API_URL');
    const echo = await ctx.app.inject({ method: 'POST', url: '/echo', payload: { a: 1 } });
    assert.equal(echo.json(), { a: 1 });
    const echoRaw = (contentType: string, payload: string) =>
      ctx.app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': contentType }, payload });
    assert.is((await echoRaw('application/json', '')).statusCode, 400);
    // The sync endpoint's read-anything parser stays inside its own plugin.
    assert.is((await echoRaw('application/x-www-form-urlencoded', '{"a":1}')).statusCode, 415);
  } finally {
    await ctx.close();
  }
});

test('a notification sent without a JSON content type is still read as JSON', async () => {
  const ctx = await startContentApp({ articles: sampleArticles() });
  try {
    for (const headers of [{ 'content-type': 'text/plain' }, {}]) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: ctx.syncPath,
        headers,
        payload: '{"slug":"getting-started"}',
      });
      assert.is(res.statusCode, 200);
      assert.is(res.json().synced, 1);
    }
  } finally {
    await ctx.close();
  }
});

test.run();
