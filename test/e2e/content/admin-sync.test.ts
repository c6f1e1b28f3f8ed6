import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { testRegistry } from '../../support/test-streams.ts';
import '../../../src/domain/content/article.ts';
import { PostgresEventStore } from '../../../src/event-store/postgres.ts';
import { runAdmin } from '../../support/cli.ts';
import { generatedArticle } from '../../support/content-samples.ts';
import { type FakeContentApi, startFakeContentApi } from '../../support/fake-content-api.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';

interface Ctx {
  db: TestDatabase;
  api: FakeContentApi;
}

const test = suite<Ctx>('e2e: stk admin sync full');
const KEY = 'content-key-for-tests';

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.api = await startFakeContentApi({
    apiKey: KEY,
    articles: Array.from({ length: 130 }, (_, i) => generatedArticle(i, 2_000)),
  });
});

test.after(async (ctx) => {
  await ctx.api.close();
  await ctx.db.drop();
});

test('pages through the content API and stores every article as events, audited as the operator', async ({
  db,
  api,
}) => {
  const run = await runAdmin(db.url, ['sync', 'full'], { CONTENT_API_URL: api.url, CONTENT_API_KEY: KEY });
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, /synced 130 article\(s\), 0 error\(s\)/);
  assert.match(run.stderr, /full sync \(blog\): 130 articles/);
  assert.match(run.stderr, /no service is running site_content/);
  const store = new PostgresEventStore(db.pool, testRegistry);
  try {
    const events = await store.readAll({ limit: 1000 });
    const synced = events.filter((e) => e.type === 'ArticleSynced');
    assert.is(synced.length, 130);
    assert.is(synced[0]?.metadata.actor, 'admin:test-operator');
  } finally {
    await store.close();
  }
  // A second run stores nothing new: unchanged articles append nothing.
  const again = await runAdmin(db.url, ['sync', 'full', '--json'], {
    CONTENT_API_URL: api.url,
    CONTENT_API_KEY: KEY,
  });
  assert.is(again.code, 0, again.stderr);
  assert.is(JSON.parse(again.stdout).errors.length, 0);
  const { rows } = await db.pool.query(`SELECT count(*)::int AS n FROM events WHERE type = 'ArticleSynced'`);
  assert.is(rows[0].n, 130);
});

test('without CONTENT_API_URL it says so and exits 1', async ({ db }) => {
  const run = await runAdmin(db.url, ['sync', 'full'], { CONTENT_API_URL: '' });
  assert.is(run.code, 1);
  assert.match(run.stderr, /CONTENT_API_URL is not set/);
});

test.run();
