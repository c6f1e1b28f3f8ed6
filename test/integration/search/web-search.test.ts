import * as assert from 'uvu/assert';
import type { FakeProvider } from '../../support/fake-provider.ts';
import { someHits, startFakeSearxng } from '../../support/fake-searxng.ts';
import {
  api,
  balanceOf,
  creditEventCount,
  creditEventsSince,
  type SearchContext,
  searchSuite,
  spendAllCredits,
} from '../../support/search.ts';

interface Ctx extends SearchContext {
  searxng: FakeProvider;
}

const test = searchSuite<Ctx>(
  'web and news search through SearXNG',
  async (ctx) => {
    ctx.searxng = await startFakeSearxng({
      general: [
        { url: 'https://www.acme.test/about', title: 'Acme', content: 'Acme makes anvils' },
        { url: 'https://blog.acme.test/anvils', title: 'Anvils', content: 'On anvils' },
        { url: 'ftp://not-http.test/', title: 'skipped: not a web result' },
        ...someHits(25),
      ],
      news: [
        {
          url: 'https://news.test/a',
          title: 'Acme raises',
          content: 'Series A',
          publishedDate: '2026-01-02T10:00:00',
        },
        { url: 'https://news.test/b', title: 'Acme hires', publishedDate: null },
      ],
    });
    return { SEARXNG_URL: ctx.searxng.url };
  },
  async (ctx) => ctx.searxng.close(),
);

test.before.each((ctx) => {
  ctx.searxng.troubles.length = 0;
});

test('a web search answers SearXNG results as ours, costs its price once, and then comes from the cache', async (ctx) => {
  const before = await balanceOf(ctx);
  const revision = await creditEventCount(ctx);
  const asked = ctx.searxng.requests().length;
  const res = await api(ctx, 'POST', '/api/search/web', {
    query: 'Acme anvils',
    limit: 2,
    language: 'en',
    timeRange: 'month',
  });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body, {
    results: [
      {
        title: 'Acme',
        url: 'https://www.acme.test/about',
        snippet: 'Acme makes anvils',
        source: 'acme.test',
      },
      {
        title: 'Anvils',
        url: 'https://blog.acme.test/anvils',
        snippet: 'On anvils',
        source: 'blog.acme.test',
      },
    ],
    provider: 'searxng',
    cached: false,
  });
  const sent = new URL(ctx.searxng.requests().at(-1)!.url, 'http://x').searchParams;
  assert.equal(Object.fromEntries(sent), {
    q: 'Acme anvils',
    format: 'json',
    categories: 'general',
    language: 'en',
    time_range: 'month',
    pageno: '1',
  });
  assert.is(await balanceOf(ctx), before - 1);
  const events = await creditEventsSince(ctx, revision);
  assert.equal(
    events.map((e) => [e.type, e.amount]),
    [
      ['CreditsReserved', 1],
      ['CreditsCharged', 1],
    ],
  );
  assert.match(events[0]!.runId!, /^srch_/);

  const again = await api(ctx, 'POST', '/api/search/web', {
    query: '  acme   ANVILS ',
    limit: 2,
    language: 'en',
    timeRange: 'month',
  });
  assert.is(again.status, 200);
  assert.equal(again.body, { ...res.body, cached: true });
  assert.is(ctx.searxng.requests().length, asked + 1, 'the repeat asked SearXNG nothing');
  assert.is(await balanceOf(ctx), before - 1, 'a cached answer is free');
});

test('a limit above one page reads the next pages until it has enough', async (ctx) => {
  const asked = ctx.searxng.requests().length;
  const res = await api(ctx, 'POST', '/api/search/web', { query: 'paging', limit: 25 });
  assert.is(res.status, 200);
  assert.is(res.body.results.length, 25);
  assert.is(new Set(res.body.results.map((r: { url: string }) => r.url)).size, 25);
  assert.equal(
    ctx.searxng
      .requests()
      .slice(asked)
      .map((r) => new URL(r.url, 'http://x').searchParams.get('pageno')),
    ['1', '2', '3'],
  );
});

test('the cache lives SEARCH_CACHE_TTL_SECONDS: after it, the search is asked and paid again', async (ctx) => {
  const body = { query: 'ttl', limit: 1 };
  assert.is((await api(ctx, 'POST', '/api/search/web', body)).body.cached, false);
  assert.is((await api(ctx, 'POST', '/api/search/web', body)).body.cached, true);
  ctx.offset += 3601_000;
  const before = await balanceOf(ctx);
  const later = await api(ctx, 'POST', '/api/search/web', body);
  assert.is(later.body.cached, false);
  assert.is(await balanceOf(ctx), before - 1);
});

test('news search asks the news category and says when each item was published', async (ctx) => {
  const res = await api(ctx, 'POST', '/api/search/news', { query: 'acme' });
  assert.is(res.status, 200);
  assert.equal(res.body.results, [
    {
      title: 'Acme raises',
      url: 'https://news.test/a',
      snippet: 'Series A',
      publishedAt: '2026-01-02T10:00:00.000Z',
      source: 'news.test',
    },
    { title: 'Acme hires', url: 'https://news.test/b', snippet: '', source: 'news.test' },
  ]);
  assert.is(new URL(ctx.searxng.requests().at(-1)!.url, 'http://x').searchParams.get('categories'), 'news');
});

test('SearXNG 429 with Retry-After: our 429 provider_rate_limited with the same Retry-After, nothing charged', async (ctx) => {
  const before = await balanceOf(ctx);
  ctx.searxng.troubles.push({
    status: 429,
    body: { error: 'Too Many Requests' },
    headers: { 'retry-after': '30' },
  });
  const res = await api(ctx, 'POST', '/api/search/web', { query: 'rate limited' });
  assert.is(res.status, 429);
  assert.is(res.headers['retry-after'], '30');
  assert.is(res.body.code, 'provider_rate_limited');
  assert.is(res.body.retryAfterSeconds, 30);
  assert.is(await balanceOf(ctx), before, 'the reservation came back');
});

test('429s without Retry-After are retried; past the attempts the client is still told when to come back', async (ctx) => {
  ctx.searxng.troubles.push({ status: 429, body: {} }, { status: 429, body: {} }, { status: 429, body: {} });
  const res = await api(ctx, 'POST', '/api/search/web', { query: 'rate limited, no header' });
  assert.is(res.status, 429);
  assert.is(res.headers['retry-after'], '60');
});

test('SearXNG failing (500, or 503 on every attempt) is a 502 provider_error; the failure is not cached', async (ctx) => {
  const before = await balanceOf(ctx);
  ctx.searxng.troubles.push({ status: 500, body: { error: 'boom' } });
  const res = await api(ctx, 'POST', '/api/search/web', { query: 'failing' });
  assert.is(res.status, 502);
  assert.is(res.body.code, 'provider_error');
  assert.match(res.body.detail, /SearXNG answered HTTP 500/);
  ctx.searxng.troubles.push({ status: 503 }, { status: 503 }, { status: 503 });
  const unavailable = await api(ctx, 'POST', '/api/search/web', { query: 'failing' });
  assert.is(unavailable.status, 502);
  assert.match(unavailable.body.detail, /HTTP 503/);
  assert.is(await balanceOf(ctx), before);
  const recovered = await api(ctx, 'POST', '/api/search/web', { query: 'failing' });
  assert.is(recovered.status, 200);
  assert.is(recovered.body.cached, false);
});

test('a 503 once is retried by the outbound client and answered', async (ctx) => {
  ctx.searxng.troubles.push({ status: 503 });
  const res = await api(ctx, 'POST', '/api/search/web', { query: 'retried once' });
  assert.is(res.status, 200);
});

test('a body that is not JSON is 502 provider_bad_response', async (ctx) => {
  ctx.searxng.troubles.push({ malformed: true });
  const res = await api(ctx, 'POST', '/api/search/web', { query: 'malformed' });
  assert.is(res.status, 502);
  assert.is(res.body.code, 'provider_bad_response');
});

test('JSON that is not SearXNG answer is 502 provider_bad_response naming where', async (ctx) => {
  ctx.searxng.troubles.push({ status: 200, body: { results: 'none' } });
  const res = await api(ctx, 'POST', '/api/search/web', { query: 'wrong shape' });
  assert.is(res.status, 502);
  assert.is(res.body.code, 'provider_bad_response');
  assert.match(res.body.detail, /at results/);
});

test('SearXNG not answering within SEARCH_PROVIDER_TIMEOUT_MS is 504 provider_timeout', async (ctx) => {
  ctx.searxng.troubles.push({ hang: true });
  const res = await api(ctx, 'POST', '/api/search/web', { query: 'slow' });
  assert.is(res.status, 504);
  assert.is(res.body.code, 'provider_timeout');
});

test('a 403 (the json format not enabled) is 502 provider_error with the hint', async (ctx) => {
  ctx.searxng.troubles.push({ status: 403, body: {} });
  const res = await api(ctx, 'POST', '/api/search/web', { query: 'forbidden' });
  assert.is(res.status, 502);
  assert.match(res.body.detail, /json format/);
});

test('a 404 (SEARXNG_URL is not the base URL of the instance) is 502 provider_error saying so', async (ctx) => {
  ctx.searxng.troubles.push({ status: 404, body: { detail: 'Not Found' } });
  const res = await api(ctx, 'POST', '/api/search/web', { query: 'wrong base' });
  assert.is(res.status, 502);
  assert.match(res.body.detail, /SEARXNG_URL/);
});

test('bad input is a 400 naming the field, and nothing is asked nor charged', async (ctx) => {
  const asked = ctx.searxng.requests().length;
  const before = await balanceOf(ctx);
  for (const [body, path] of [
    [{ query: '' }, 'query'],
    [{ query: 'x', limit: 0 }, 'limit'],
    [{ query: 'x', limit: 51 }, 'limit'],
    [{ query: 'x', timeRange: 'decade' }, 'timeRange'],
    [{ query: 'x', language: 'english!' }, 'language'],
    [{ query: 'x', engine: 'google' }, 'engine'],
  ] as const) {
    const res = await api(ctx, 'POST', '/api/search/web', body);
    assert.is(res.status, 400, JSON.stringify(body));
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      [path],
    );
  }
  assert.is(ctx.searxng.requests().length, asked);
  assert.is(await balanceOf(ctx), before);
});

test('without credits an uncached search is 402 and asks nothing; a cached one is still answered', async (ctx) => {
  await api(ctx, 'POST', '/api/search/web', { query: 'kept before the money ran out' });
  await spendAllCredits(ctx);
  const asked = ctx.searxng.requests().length;
  const res = await api(ctx, 'POST', '/api/search/web', { query: 'new question' });
  assert.is(res.status, 402);
  assert.is(res.body.code, 'insufficient_credits');
  assert.is(ctx.searxng.requests().length, asked);
  const cached = await api(ctx, 'POST', '/api/search/web', { query: 'kept before the money ran out' });
  assert.is(cached.status, 200);
  assert.is(cached.body.cached, true);
});

test.run();
