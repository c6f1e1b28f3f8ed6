import * as assert from 'uvu/assert';
import { type CliContext, cliSuite } from '../../support/cli-suite.ts';
import { pdlCompany, pdlPerson, startFakePeopleData } from '../../support/fake-people-data.ts';
import { startFakeSearxng } from '../../support/fake-searxng.ts';
import { someProfile, startFakeUnipile } from '../../support/fake-unipile.ts';

const searxng = await startFakeSearxng({
  general: [{ url: 'https://acme.test/', title: 'Acme home', content: 'Anvils' }],
  news: [{ url: 'https://news.test/acme', title: 'Acme raises', publishedDate: '2026-01-02T00:00:00Z' }],
});
const pdl = await startFakePeopleData('pdl-cli-key', {
  companies: [pdlCompany('Acme', 'acme.test')],
  people: [pdlPerson('Jane Doe', 'Acme', 'acme.test')],
});
const unipile = await startFakeUnipile('unipile-cli-key', {
  profiles: [someProfile('janedoe')],
  posts: { janedoe: 2 },
});

const { test, stk, json } = cliSuite<CliContext>(
  'e2e: stk search and stk linkedin against the running service',
  {
    env: () => ({
      SEARXNG_URL: searxng.url,
      PEOPLE_DATA_URL: pdl.url,
      PEOPLE_DATA_API_KEY: 'pdl-cli-key',
      LINKEDIN_DATA_URL: unipile.url,
      LINKEDIN_DATA_API_KEY: 'unipile-cli-key',
    }),
  },
);
test.after(async () => {
  await Promise.all([searxng.close(), pdl.close(), unipile.close()]);
});

test('stk search web | news | companies | people', async (ctx) => {
  const web = await json(ctx, ['search', 'web', 'acme', 'anvils', '--limit', '5']);
  assert.equal(
    web.results.map((r: { url: string }) => r.url),
    ['https://acme.test/'],
  );
  assert.is(web.cached, false);
  const human = await stk(ctx, ['search', 'web', 'acme', 'anvils', '--limit', '5']);
  assert.is(human.code, 0, human.stderr);
  assert.match(human.stdout, /Acme home/);
  assert.match(human.stdout, /from the cache: no credits/);
  const news = await json(ctx, ['search', 'news', 'acme', '--time-range', 'week']);
  assert.is(news.results[0].publishedAt, '2026-01-02T00:00:00.000Z');
  const companies = await json(ctx, ['search', 'companies', '--domain', 'acme.test']);
  assert.is(companies.results[0].name, 'Acme');
  const people = await json(ctx, ['search', 'people', '--name', 'Jane Doe', '--company', 'Acme']);
  assert.is(people.results[0].fullName, 'jane doe');
});

test('a refused search prints the problem and exits non-zero', async (ctx) => {
  const run = await stk(ctx, ['search', 'people', '--name', 'Jane Doe']);
  assert.is.not(run.code, 0);
  assert.match(run.stderr, /company/);
});

test('stk linkedin status | limits | search | profile | posts', async (ctx) => {
  const status = await json(ctx, ['linkedin', 'status']);
  assert.equal([status.provider, status.reachable, status.connectedAccounts], ['unipile', true, 1]);
  const limits = await json(ctx, ['linkedin', 'limits']);
  assert.equal(limits.accounts, []);
  const found = await json(ctx, ['linkedin', 'search', 'jane', '--type', 'people']);
  assert.is(found.results[0].handle, 'janedoe');
  const profile = await stk(ctx, ['linkedin', 'profile', 'https://www.linkedin.com/in/janedoe']);
  assert.is(profile.code, 0, profile.stderr);
  assert.match(profile.stdout, /janedoe at Acme/);
  const posts = await json(ctx, ['linkedin', 'posts', 'janedoe', '--limit', '1']);
  assert.is(posts.posts.length, 1);
  const bad = await stk(ctx, ['linkedin', 'search', 'x', '--type', 'groups']);
  assert.is.not(bad.code, 0);
});

test.run();
