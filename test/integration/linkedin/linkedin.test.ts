import * as assert from 'uvu/assert';
import { bearer, call, issueKey } from '../../support/accounts.ts';
import type { FakeProvider } from '../../support/fake-provider.ts';
import { someProfile, startFakeUnipile, unipileError } from '../../support/fake-unipile.ts';
import { api, balanceOf, type SearchContext, searchSuite } from '../../support/search.ts';
import { addMember, addSender } from '../../support/sequences.ts';

interface Ctx extends SearchContext {
  unipile: FakeProvider;
}

const KEY = 'unipile-key-secret-42';

const test = searchSuite<Ctx>(
  'LinkedIn data through Unipile',
  async (ctx) => {
    ctx.unipile = await startFakeUnipile(KEY, {
      profiles: [someProfile('janedoe'), someProfile('johnroe')],
      posts: { janedoe: 3 },
    });
    return { LINKEDIN_DATA_URL: ctx.unipile.url, LINKEDIN_DATA_API_KEY: KEY };
  },
  async (ctx) => ctx.unipile.close(),
);

test.before.each((ctx) => {
  ctx.unipile.troubles.length = 0;
});

test('status: the linkedin sender accounts, the provider configured and reachable, free', async (ctx) => {
  const userId = await addMember(ctx.t.app, ctx.key, 'li-owner@example.test');
  const sender = await addSender(ctx.t.app, ctx.key, {
    type: 'linkedin',
    address: 'jane-li',
    userId,
    dailyLimit: 25,
  });
  await addSender(ctx.t.app, ctx.key, { type: 'email', address: 'jane@acme.test', userId });
  const before = await balanceOf(ctx);
  const res = await api(ctx, 'GET', '/api/linkedin/status');
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body, {
    provider: 'unipile',
    configured: true,
    reachable: true,
    connectedAccounts: 1,
    problem: null,
    senderAccounts: [{ id: sender, address: 'jane-li', userId, dailyLimit: 25 }],
  });
  assert.is(await balanceOf(ctx), before);

  ctx.unipile.troubles.push({ status: 503 }, { status: 503 }, { status: 503 });
  const down = await api(ctx, 'GET', '/api/linkedin/status');
  assert.is(down.status, 200);
  assert.is(down.body.reachable, false);
  assert.equal(down.body.problem, { code: 'provider_error', detail: 'Unipile answered HTTP 503' });
});

test('limits: per linkedin sender account, its daily limit and what today used of it', async (ctx) => {
  const res = await api(ctx, 'GET', '/api/linkedin/limits');
  assert.is(res.status, 200);
  assert.is(res.body.day, new Date().toISOString().slice(0, 10));
  assert.is(res.body.accounts.length, 1);
  assert.equal(
    (({ dailyLimit, usedToday, remainingToday }) => ({ dailyLimit, usedToday, remainingToday }))(
      res.body.accounts[0],
    ),
    { dailyLimit: 25, usedToday: 0, remainingToday: 25 },
  );
});

test('a profile by URL or handle: Unipile asked as its first LinkedIn account, then cached', async (ctx) => {
  const before = await balanceOf(ctx);
  const url = encodeURIComponent('https://www.linkedin.com/in/janedoe/?trk=x');
  const res = await api(ctx, 'GET', `/api/linkedin/profiles/${url}`);
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body, {
    profile: {
      id: 'ACoAAJANEDOE',
      handle: 'janedoe',
      firstName: 'janedoe',
      lastName: 'Doe',
      headline: 'janedoe at Acme',
      location: 'Berlin',
      summary: null,
      url: 'https://www.linkedin.com/in/janedoe',
      followerCount: null,
      connectionsCount: null,
    },
    provider: 'unipile',
    cached: false,
  });
  const sent = ctx.unipile.requests('/api/v1/users/janedoe').at(-1)!;
  assert.is(new URL(sent.url, 'http://x').searchParams.get('account_id'), 'acc_linkedin1');
  assert.is(sent.headers['x-api-key'], KEY);
  assert.is(await balanceOf(ctx), before - 2);
  const byHandle = await api(ctx, 'GET', '/api/linkedin/profiles/JaneDoe');
  assert.is(byHandle.body.cached, true, 'a handle and a URL of the same profile share the cache');
});

test('an unknown profile is profile: null; a URL that names no profile is 400 naming the parameter', async (ctx) => {
  const missing = await api(ctx, 'GET', '/api/linkedin/profiles/nobody');
  assert.is(missing.status, 200);
  assert.equal(missing.body, { profile: null, provider: 'unipile', cached: false });
  const bad = await api(
    ctx,
    'GET',
    `/api/linkedin/profiles/${encodeURIComponent('https://www.linkedin.com/company/acme')}`,
  );
  assert.is(bad.status, 400);
  assert.equal(
    bad.body.errors.map((e: { path: string }) => e.path),
    ['params.handleOrUrl'],
  );
});

test('posts of a profile, newest first, up to the limit', async (ctx) => {
  const res = await api(ctx, 'GET', '/api/linkedin/posts?profile=janedoe&limit=2');
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.posts[0], {
    id: 'urn:li:activity:0',
    text: 'post 0 of janedoe',
    url: 'https://www.linkedin.com/posts/janedoe-0',
    publishedAt: '2026-01-10T00:00:00.000Z',
    reactions: 0,
    comments: 1,
    reposts: 0,
  });
  assert.is(res.body.posts.length, 2);
  assert.is(
    ctx.unipile.requests('/api/v1/users/ACoAAJANEDOE/posts').length,
    1,
    'posts are asked by provider id',
  );
  assert.is(res.body.found, true);
  const missing = await api(ctx, 'GET', '/api/linkedin/posts?profile=nobody');
  assert.is(missing.status, 200);
  assert.equal([missing.body.found, missing.body.posts], [false, []]);
});

test('search people or companies', async (ctx) => {
  const people = await api(ctx, 'POST', '/api/linkedin/search', { query: 'john', type: 'people' });
  assert.is(people.status, 200);
  assert.equal(people.body.results, [
    {
      type: 'person',
      id: 'ACoAAJOHNROE',
      name: 'johnroe Doe',
      headline: 'johnroe at Acme',
      location: 'Berlin',
      url: 'https://www.linkedin.com/in/johnroe',
      handle: 'johnroe',
    },
  ]);
  const sent = JSON.parse(ctx.unipile.requests('/api/v1/linkedin/search').at(-1)!.body);
  assert.equal(sent, { api: 'classic', category: 'people', keywords: 'john' });
  const companies = await api(ctx, 'POST', '/api/linkedin/search', { query: 'acme', type: 'companies' });
  assert.is(companies.body.results[0].type, 'company');
  const bad = await api(ctx, 'POST', '/api/linkedin/search', { query: 'acme', type: 'groups' });
  assert.is(bad.status, 400);
  assert.equal(
    bad.body.errors.map((e: { path: string }) => e.path),
    ['type'],
  );
});

test('Unipile 429 passes Retry-After on; its 401 is 502 without the key', async (ctx) => {
  ctx.unipile.troubles.push({
    status: 429,
    body: unipileError(429, 'errors/too_many_requests', 'Too many requests'),
    headers: { 'retry-after': '120' },
  });
  const limited = await api(ctx, 'POST', '/api/linkedin/search', { query: 'rate', type: 'people' });
  assert.is(limited.status, 429);
  assert.is(limited.headers['retry-after'], '120');
  ctx.unipile.troubles.push({ status: 401, body: unipileError(401, 'errors/invalid_credentials', KEY) });
  const refused = await api(ctx, 'POST', '/api/linkedin/search', { query: 'refused', type: 'people' });
  assert.is(refused.status, 502);
  assert.not.ok(JSON.stringify(refused.body).includes(KEY));
  assert.not.ok(ctx.log.join('').includes(KEY));
});

test('the linkedin routes need linkedin:read', async (ctx) => {
  const { apiKey } = await issueKey(ctx.t.app, ctx.key, ['search:run']);
  const res = await call(ctx.t.app, 'GET', '/api/linkedin/status', { headers: bearer(apiKey) });
  assert.is(res.status, 403);
  assert.is(res.body.scope, 'linkedin:read');
});

test.run();
