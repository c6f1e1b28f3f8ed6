import * as assert from 'uvu/assert';
import { pdlCompany, pdlError, pdlPerson, startFakePeopleData } from '../../support/fake-people-data.ts';
import type { FakeProvider } from '../../support/fake-provider.ts';
import { api, balanceOf, type SearchContext, searchSuite } from '../../support/search.ts';

interface Ctx extends SearchContext {
  pdl: FakeProvider;
}

const KEY = 'pdl-key-0123456789abcdef';

const test = searchSuite<Ctx>(
  'companies and people through People Data Labs',
  async (ctx) => {
    ctx.pdl = await startFakePeopleData(KEY, {
      companies: [
        pdlCompany('Acme', 'acme.test'),
        pdlCompany('Globex', 'globex.test', { industry: 'chemicals' }),
      ],
      people: [
        pdlPerson('Jane Doe', 'Acme', 'acme.test', { work_email: 'jane@acme.test' }),
        pdlPerson('John Roe', 'Acme', 'acme.test', { job_title: 'cto' }),
        pdlPerson('Mary Poe', 'Globex', 'globex.test'),
      ],
    });
    return { PEOPLE_DATA_URL: ctx.pdl.url, PEOPLE_DATA_API_KEY: KEY };
  },
  async (ctx) => ctx.pdl.close(),
);

test.before.each((ctx) => {
  ctx.pdl.troubles.length = 0;
});

const acme = {
  name: 'Acme',
  domain: 'acme.test',
  linkedinUrl: 'https://linkedin.com/company/acme',
  industry: 'computer software',
  size: '51-200',
  employeeCount: 120,
  founded: 2015,
  location: 'berlin, germany',
  description: 'Acme makes software',
};

test('a company by domain: the enrichment API with the key in X-Api-Key, priced as company_lookup', async (ctx) => {
  const before = await balanceOf(ctx);
  const res = await api(ctx, 'POST', '/api/search/companies', { domain: 'https://www.Acme.test/about' });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body, { results: [acme], provider: 'peopledatalabs', cached: false });
  const sent = ctx.pdl.requests('/v5/company/enrich').at(-1)!;
  assert.is(sent.method, 'GET');
  assert.is(new URL(sent.url, 'http://x').searchParams.get('website'), 'acme.test');
  assert.is(sent.headers['x-api-key'], KEY);
  assert.is(await balanceOf(ctx), before - 2);
});

test('a company by name, and by free text through the search API with size', async (ctx) => {
  const byName = await api(ctx, 'POST', '/api/search/companies', { name: 'Globex' });
  assert.equal(
    byName.body.results.map((c: { name: string }) => c.name),
    ['Globex'],
  );
  const byQuery = await api(ctx, 'POST', '/api/search/companies', { query: 'chemicals', limit: 3 });
  assert.equal(
    byQuery.body.results.map((c: { name: string }) => c.name),
    ['Globex'],
  );
  const sent = JSON.parse(ctx.pdl.requests('/v5/company/search').at(-1)!.body);
  assert.is(sent.size, 3);
  assert.ok(sent.query.bool.should.length > 0);
});

test('nothing found (PDL answers 404) is an empty answer, charged and cached like any other', async (ctx) => {
  const res = await api(ctx, 'POST', '/api/search/companies', { domain: 'nobody.test' });
  assert.is(res.status, 200);
  assert.equal(res.body.results, []);
  assert.is((await api(ctx, 'POST', '/api/search/companies', { domain: 'nobody.test' })).body.cached, true);
});

test('people by name and company, by employer domain, by LinkedIn URL and by free text', async (ctx) => {
  const one = await api(ctx, 'POST', '/api/search/people', { name: 'Jane Doe', company: 'Acme' });
  assert.is(one.status, 200);
  assert.equal(one.body.results, [
    {
      fullName: 'jane doe',
      jobTitle: 'head of sales',
      companyName: 'acme',
      companyDomain: 'acme.test',
      linkedinUrl: 'https://linkedin.com/in/jane-doe',
      location: 'berlin, germany',
      workEmail: 'jane@acme.test',
    },
  ]);
  const byDomain = await api(ctx, 'POST', '/api/search/people', { domain: 'acme.test', limit: 5 });
  assert.equal(
    byDomain.body.results.map((p: { fullName: string }) => p.fullName),
    ['jane doe', 'john roe'],
  );
  assert.equal(JSON.parse(ctx.pdl.requests('/v5/person/search').at(-1)!.body), {
    query: { term: { job_company_website: 'acme.test' } },
    size: 5,
  });
  const byUrl = await api(ctx, 'POST', '/api/search/people', {
    linkedinUrl: 'https://www.linkedin.com/in/mary-poe',
  });
  assert.equal(
    byUrl.body.results.map((p: { fullName: string }) => p.fullName),
    ['mary poe'],
  );
  assert.is(
    byUrl.body.results[0].workEmail,
    null,
    'work_email: true (a plan without addresses) is no address',
  );
  const byQuery = await api(ctx, 'POST', '/api/search/people', { query: 'cto' });
  assert.equal(
    byQuery.body.results.map((p: { fullName: string }) => p.fullName),
    ['john roe'],
  );
});

test('one way of asking: none, two, or a name without its company is a 400 naming the field', async (ctx) => {
  const asked = ctx.pdl.requests().length;
  const cases: [string, object, string][] = [
    ['/api/search/companies', {}, 'query'],
    ['/api/search/companies', { domain: 'acme.test', name: 'Acme' }, 'name'],
    ['/api/search/companies', { domain: 'not a domain' }, 'domain'],
    ['/api/search/people', { name: 'Jane Doe' }, 'company'],
    ['/api/search/people', { query: 'x', domain: 'acme.test' }, 'domain'],
  ];
  for (const [path, body, field] of cases) {
    const res = await api(ctx, 'POST', path, body);
    assert.is(res.status, 400, JSON.stringify(body));
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      [field],
      JSON.stringify(body),
    );
  }
  assert.is(ctx.pdl.requests().length, asked);
});

test('a refused key is a 502 provider_error that quotes neither the key nor the answer; the log has no key', async (ctx) => {
  ctx.pdl.troubles.push({
    status: 401,
    body: pdlError(401, 'authentication_error', `Invalid API key ${KEY}`),
  });
  const res = await api(ctx, 'POST', '/api/search/companies', { domain: 'refused.test' });
  assert.is(res.status, 502);
  assert.is(res.body.code, 'provider_error');
  assert.match(res.body.detail, /refused the configured key \(HTTP 401\)/);
  assert.not.ok(JSON.stringify(res.body).includes(KEY));
  assert.ok(ctx.log.length > 0, 'the service logged at debug');
  assert.not.ok(ctx.log.join('').includes(KEY), 'the key is never logged');
});

test('PDL 429 (rate_limit_error) passes its Retry-After on; a 400 is 422 provider_rejected with its message', async (ctx) => {
  ctx.pdl.troubles.push({
    status: 429,
    body: pdlError(429, 'rate_limit_error', 'You have hit your account rate limit.'),
    headers: { 'retry-after': '45' },
  });
  const limited = await api(ctx, 'POST', '/api/search/people', { query: 'sales' });
  assert.is(limited.status, 429);
  assert.is(limited.headers['retry-after'], '45');
  ctx.pdl.troubles.push({
    status: 400,
    body: pdlError(400, 'invalid_request_error', 'Unsupported field in query'),
  });
  const rejected = await api(ctx, 'POST', '/api/search/people', { query: 'sales' });
  assert.is(rejected.status, 422);
  assert.is(rejected.body.code, 'provider_rejected');
  assert.match(rejected.body.detail, /Unsupported field in query/);
});

test.run();
