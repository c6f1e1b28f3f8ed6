import * as assert from 'uvu/assert';
import { api, balanceOf, type SearchContext, searchSuite } from '../../support/search.ts';

const test = searchSuite<SearchContext>('search and LinkedIn data with no provider configured', () => ({}));

const ROUTES: [string, string, object | undefined, string][] = [
  ['POST', '/api/search/web', { query: 'x' }, 'SEARXNG_URL'],
  ['POST', '/api/search/news', { query: 'x' }, 'SEARXNG_URL'],
  ['POST', '/api/search/companies', { domain: 'acme.test' }, 'PEOPLE_DATA_API_KEY'],
  ['POST', '/api/search/people', { query: 'x' }, 'PEOPLE_DATA_API_KEY'],
  ['POST', '/api/linkedin/search', { query: 'x', type: 'people' }, 'LINKEDIN_DATA_URL'],
  ['GET', '/api/linkedin/profiles/janedoe', undefined, 'LINKEDIN_DATA_URL'],
  ['GET', '/api/linkedin/posts?profile=janedoe', undefined, 'LINKEDIN_DATA_URL'],
];

test('every provider route answers 503 provider_unavailable naming the variable to set, charging nothing', async (ctx) => {
  const before = await balanceOf(ctx);
  for (const [method, path, body, variable] of ROUTES) {
    const res = await api(ctx, method, path, body);
    assert.is(res.status, 503, path);
    assert.is(res.body.code, 'provider_unavailable', path);
    assert.ok(res.body.detail.includes(variable), `${path}: ${res.body.detail}`);
  }
  assert.is(await balanceOf(ctx), before);
});

test('bad input is still a 400 before the missing provider is mentioned', async (ctx) => {
  const res = await api(ctx, 'POST', '/api/search/web', { limit: 3 });
  assert.is(res.status, 400);
  assert.equal(
    res.body.errors.map((e: { path: string }) => e.path),
    ['query'],
  );
});

test('status says no provider is configured, and what to set', async (ctx) => {
  const res = await api(ctx, 'GET', '/api/linkedin/status');
  assert.is(res.status, 200);
  assert.is(res.body.configured, false);
  assert.is(res.body.reachable, false);
  assert.is(res.body.problem.code, 'provider_unavailable');
  assert.match(res.body.problem.detail, /LINKEDIN_DATA_URL/);
});

test.run();
