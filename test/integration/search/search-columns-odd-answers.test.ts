import * as assert from 'uvu/assert';
import { startFakePeopleData } from '../../support/fake-people-data.ts';
import type { FakeProvider, Trouble } from '../../support/fake-provider.ts';
import { startFakeSearxng } from '../../support/fake-searxng.ts';
import { startFakeUnipile } from '../../support/fake-unipile.ts';
import { createColumns, insertRows } from '../../support/rows.ts';
import { runEnded } from '../../support/runs.ts';
import { api, providersEnv, type SearchContext, searchSuite } from '../../support/search.ts';
import { createTable } from '../../support/tables.ts';

interface Ctx extends SearchContext {
  searxng: FakeProvider;
  pdl: FakeProvider;
  unipile: FakeProvider;
}

const test = searchSuite<Ctx>(
  'search column providers: an odd answer is the row error, after one call',
  async (ctx) => {
    ctx.searxng = await startFakeSearxng();
    ctx.pdl = await startFakePeopleData('pdl-key');
    ctx.unipile = await startFakeUnipile('unipile-key', { profiles: [] });
    return {
      ...providersEnv(ctx),
      // One account, so that a profile is one request.
      LINKEDIN_DATA_ACCOUNT_ID: 'acc_1',
    };
  },
  async (ctx) => {
    await Promise.all([ctx.searxng.close(), ctx.pdl.close(), ctx.unipile.close()]);
  },
);

let made = 0;

/** One row through a fresh column of `config` with the provider's next answer `trouble`: its run row. */
async function oddRow(ctx: Ctx, fake: FakeProvider, config: object, trouble: Trouble) {
  const tableId = await createTable(ctx.t.app, ctx.key);
  const columns = await createColumns(ctx.t.app, ctx.key, tableId, {
    v: 'text',
    out: { dataType: 'json', kind: 'enrichment', config },
  });
  // A value of its own per case: no answer comes from the cache.
  await insertRows(ctx.t.app, ctx.key, tableId, [{ v: `odd${++made}` }]);
  const before = fake.requests().length;
  fake.troubles.push(trouble);
  const started = await api(ctx, 'POST', `/api/tables/${tableId}/columns/${columns.out.id}/run`, {
    scope: 'all',
  });
  assert.is(started.status, 202, JSON.stringify(started.body));
  const ended = await runEnded(ctx.t.app, ctx.key, started.body.id);
  const rows = await api(ctx, 'GET', `/api/runs/${ended.id}/rows`);
  fake.troubles.length = 0;
  return { row: rows.body.data[0], calls: fake.requests().length - before };
}

test('each provider: a body its API does not document is provider_bad_response, not a crash', async (ctx) => {
  const web = { provider: 'web_search', query: '{{v}}' };
  const company = { provider: 'company_lookup', name: '{{v}}' };
  const person = { provider: 'person_lookup', linkedinUrl: 'https://www.linkedin.com/in/{{v}}' };
  const profile = { provider: 'linkedin_profile', profile: '{{v}}' };
  const cases: [string, FakeProvider, object, Trouble][] = [
    ['web: results not a list', ctx.searxng, web, { status: 200, body: { results: 'none' } }],
    ['web: a null result', ctx.searxng, web, { status: 200, body: { results: [null] } }],
    ['web: an empty object', ctx.searxng, web, { status: 200, body: {} }],
    ['web: a body that is not JSON', ctx.searxng, web, { malformed: true }],
    ['company: a list body', ctx.pdl, company, { status: 200, body: [] }],
    ['company: a string body', ctx.pdl, company, { status: 200, body: 'acme' }],
    ['person: data null', ctx.pdl, person, { status: 200, body: { data: null } }],
    ['person: no data', ctx.pdl, person, { status: 200, body: { status: 200 } }],
    ['profile: no provider_id', ctx.unipile, profile, { status: 200, body: { first_name: 'x' } }],
    ['profile: a string body', ctx.unipile, profile, { status: 200, body: 'profile' }],
  ];
  const wrong: string[] = [];
  for (const [name, fake, config, trouble] of cases) {
    const { row, calls } = await oddRow(ctx, fake, config, trouble);
    const seen = { status: row.status, code: row.error?.code, attempts: row.attempts, calls };
    const expected = { status: 'failed', code: 'provider_bad_response', attempts: 1, calls: 1 };
    if (JSON.stringify(seen) !== JSON.stringify(expected)) wrong.push(`${name}: ${JSON.stringify(seen)}`);
  }
  assert.equal(wrong, []);
});

test.run();
