import * as assert from 'uvu/assert';
import { pdlCompany, pdlPerson, startFakePeopleData } from '../../support/fake-people-data.ts';
import type { FakeProvider } from '../../support/fake-provider.ts';
import { startFakeSearxng } from '../../support/fake-searxng.ts';
import { someProfile, startFakeUnipile } from '../../support/fake-unipile.ts';
import { createColumns, insertRows, listAll } from '../../support/rows.ts';
import { runSettled } from '../../support/runs.ts';
import { api, balanceOf, providersEnv, type SearchContext, searchSuite } from '../../support/search.ts';
import { createTable } from '../../support/tables.ts';

interface Ctx extends SearchContext {
  searxng: FakeProvider;
  pdl: FakeProvider;
  unipile: FakeProvider;
}

const test = searchSuite<Ctx>(
  'web_search, company_lookup, person_lookup and linkedin_profile as column providers',
  async (ctx) => {
    ctx.searxng = await startFakeSearxng({
      general: [{ url: 'https://acme.test/', title: 'Acme', content: 'Acme home' }],
    });
    ctx.pdl = await startFakePeopleData('pdl-key', {
      companies: [pdlCompany('Acme', 'acme.test')],
      people: [pdlPerson('Jane Doe', 'Acme', 'acme.test')],
    });
    ctx.unipile = await startFakeUnipile('unipile-key', { profiles: [someProfile('janedoe')] });
    return providersEnv(ctx);
  },
  async (ctx) => {
    await Promise.all([ctx.searxng.close(), ctx.pdl.close(), ctx.unipile.close()]);
  },
);

const run = async (ctx: Ctx, tableId: string, columnId: string) => {
  const res = await api(ctx, 'POST', `/api/tables/${tableId}/columns/${columnId}/run`, { scope: 'all' });
  assert.is(res.status, 202, JSON.stringify(res.body));
  return runSettled(ctx.t, ctx.key, res.body.id);
};

const enrichment = (config: object) => ({ dataType: 'json', kind: 'enrichment', config });

test('a run fills cells from each provider, templates over the row; a second run is answered from the cache and free', async (ctx) => {
  const tableId = await createTable(ctx.t.app, ctx.key);
  const columns = await createColumns(ctx.t.app, ctx.key, tableId, {
    domain: 'text',
    person: 'text',
    handle: 'text',
    web: enrichment({ provider: 'web_search', query: '{{domain}} homepage', limit: 3 }),
    company: enrichment({ provider: 'company_lookup', domain: '{{domain}}' }),
    contact: enrichment({ provider: 'person_lookup', name: '{{person}}', company: 'Acme' }),
    profile: enrichment({ provider: 'linkedin_profile', profile: 'https://www.linkedin.com/in/{{handle}}' }),
  });
  await insertRows(ctx.t.app, ctx.key, tableId, [
    { domain: 'acme.test', person: 'Jane Doe', handle: 'janedoe' },
    { domain: 'nobody.test', person: 'No Body', handle: 'nobody' },
  ]);
  const before = await balanceOf(ctx);
  for (const key of ['web', 'company', 'contact', 'profile']) {
    const ended = await run(ctx, tableId, columns[key].id);
    assert.is(ended.status, 'succeeded', `${key}: ${JSON.stringify(ended)}`);
  }
  const [acme, nobody] = await listAll(ctx.t.app, ctx.key, tableId);
  assert.equal(acme.cells.web, [
    { title: 'Acme', url: 'https://acme.test/', snippet: 'Acme home', source: 'acme.test' },
  ]);
  assert.is(acme.cells.company.name, 'Acme');
  assert.is(acme.cells.contact.fullName, 'jane doe');
  assert.is(acme.cells.profile.handle, 'janedoe');
  assert.is(nobody.cells.company ?? null, null, 'no match is an empty cell, not an error');
  assert.is(nobody.cells.profile ?? null, null);
  const queries = ctx.searxng
    .requests('/search')
    .map((r) => new URL(r.url, 'http://x').searchParams.get('q'));
  assert.equal([...new Set(queries)].sort(), ['acme.test homepage', 'nobody.test homepage']);
  // 2 rows each: web_search 1, company_lookup 2, person_lookup 2, linkedin_profile 2.
  assert.is(await balanceOf(ctx), before - 2 * (1 + 2 + 2 + 2));

  const asked = ctx.pdl.requests().length;
  const again = await run(ctx, tableId, columns.company.id);
  assert.is(again.status, 'succeeded');
  assert.is(again.credits.charged, 0, 'rows answered from the cache are free');
  assert.is(again.credits.refunded, again.credits.reserved);
  assert.is(ctx.pdl.requests().length, asked, 'the provider was not asked again');
  assert.is(await balanceOf(ctx), before - 14);
});

test("a provider's failure is the row's error under the API's code", async (ctx) => {
  const tableId = await createTable(ctx.t.app, ctx.key);
  const columns = await createColumns(ctx.t.app, ctx.key, tableId, {
    q: 'text',
    web: enrichment({ provider: 'web_search', query: '{{q}}' }),
  });
  await insertRows(ctx.t.app, ctx.key, tableId, [{ q: 'rate limited row' }, { q: '' }]);
  ctx.searxng.troubles.push({ status: 429, headers: { 'retry-after': '300' } });
  const ended = await run(ctx, tableId, columns.web.id);
  assert.is(ended.status, 'failed', JSON.stringify(ended));
  const rows = await api(ctx, 'GET', `/api/runs/${ended.id}/rows`);
  const codes = rows.body.data.map((r: { error: { code: string } | null }) => r.error?.code).sort();
  assert.equal(codes, ['missing_input', 'provider_rate_limited']);
});

test('config is validated: one way of asking, templates naming columns of the table', async (ctx) => {
  const tableId = await createTable(ctx.t.app, ctx.key);
  await createColumns(ctx.t.app, ctx.key, tableId, { domain: 'text' });
  const cases: [object, string][] = [
    [{ provider: 'company_lookup' }, 'config.domain'],
    [{ provider: 'company_lookup', domain: '{{domain}}', name: 'Acme' }, 'config.name'],
    [{ provider: 'person_lookup', name: '{{domain}}' }, 'config.company'],
    [{ provider: 'web_search', query: '{{missing}}' }, 'config.query'],
    [{ provider: 'web_search', query: 'x', limit: 99 }, 'config.limit'],
    [{ provider: 'linkedin_profile' }, 'config.profile'],
    [{ provider: 'web_search', query: 'x', engine: 'google' }, 'config.engine'],
  ];
  for (const [config, path] of cases) {
    const res = await api(ctx, 'POST', `/api/tables/${tableId}/columns`, {
      label: 'x',
      key: 'x',
      kind: 'enrichment',
      dataType: 'json',
      config,
    });
    assert.is(res.status, 400, JSON.stringify(config));
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      [path],
      JSON.stringify(config),
    );
  }
});

test.run();
