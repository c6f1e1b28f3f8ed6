import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ContentApp, cronHeaders, startContentApp } from '../../support/content-app.ts';
import { generatedArticle, type RawArticle } from '../../support/content-samples.ts';

const ARTICLES: RawArticle[] = Array.from({ length: 250 }, (_, i) => generatedArticle(i, 600));

const test = suite<{ ctx: ContentApp }>('content full sync');

test.before(async (context) => {
  context.ctx = await startContentApp({ articles: ARTICLES, maxPages: 3 });
});
test.after(async ({ ctx }) => ctx.close());
test.before.each(({ ctx }) => {
  ctx.fake.reset();
  ctx.fake.setArticles(ARTICLES);
});

const fullSync = (ctx: ContentApp) =>
  ctx.app.inject({ method: 'GET', url: ctx.syncPath, headers: cronHeaders });

test('pages with limit=100 and offsets 0, 100, 200 until a short page; stores every article', async ({
  ctx,
}) => {
  // Slow answers, so that the requests in flight overlap and the limit shows.
  ctx.fake.behaviour.delayMs = 5;
  const res = await fullSync(ctx);
  assert.is(res.statusCode, 200);
  const body = res.json();
  assert.is(body.synced, 250);
  assert.equal(body.errors, []);
  assert.equal(
    ctx.fake.listRequests().map((r) => r.query),
    [0, 100, 200].map((offset) => ({ kind: 'blog', limit: '100', offset: String(offset) })),
  );
  assert.is(ctx.fake.detailRequests().length, 250, 'summaries without HTML are fetched by slug');
  assert.ok(
    ctx.fake.maxConcurrentDetails <= 8,
    `at most 8 detail requests in flight (${ctx.fake.maxConcurrentDetails})`,
  );
  assert.equal(
    body.items.slice(0, 2).map((i: { slug: string }) => i.slug),
    ['article-00000', 'article-00001'],
  );
  const events = await ctx.articleEvents();
  assert.is(events.length, 250);
  assert.ok(events.every((e) => e.metadata.actor === 'system:cron' && e.data.source === 'full'));
  const { rows } = await ctx.db.pool.query('SELECT count(*)::int AS n FROM site_content');
  assert.is(rows[0].n, 250);
});

test('an unchanged second full sync appends nothing and reports every item', async ({ ctx }) => {
  const before = (await ctx.articleEvents()).length;
  const res = await fullSync(ctx);
  assert.is(res.json().synced, 250);
  assert.is((await ctx.articleEvents()).length, before);
});

test('list and article shapes: bare arrays and wrappers, list items carrying HTML are used as they are', async ({
  ctx,
}) => {
  for (const listShape of ['bare', 'data', 'items', 'articles', 'results'] as const) {
    ctx.fake.reset();
    ctx.fake.behaviour.listShape = listShape;
    ctx.fake.behaviour.listIncludesHtml = true;
    const res = await fullSync(ctx);
    assert.is(res.json().synced, 250, listShape);
    assert.is(ctx.fake.detailRequests().length, 0, listShape);
  }
  for (const articleShape of ['post', 'article', 'data'] as const) {
    ctx.fake.reset();
    ctx.fake.behaviour.articleShape = articleShape;
    const res = await ctx.app.inject({
      method: 'POST',
      url: ctx.syncPath,
      payload: { slugs: ARTICLES.slice(0, 3).map((a) => a.slug) },
    });
    assert.is(res.json().synced, 3, articleShape);
    assert.equal(res.json().errors, [], articleShape);
  }
});

test('nothing is ever deleted: an article gone upstream keeps its row and page', async ({ ctx }) => {
  ctx.fake.setArticles(ARTICLES.slice(1));
  const res = await fullSync(ctx);
  assert.is(res.json().synced, 249);
  const page = await ctx.app.inject({ method: 'GET', url: `/blog/${ARTICLES[0]!.slug}` });
  assert.is(page.statusCode, 200);
});

test('a page repeating the previous one stops the sync with an error', async ({ ctx }) => {
  ctx.fake.behaviour.pagination = 'repeat';
  const res = await fullSync(ctx);
  assert.is(res.statusCode, 200);
  const body = res.json();
  assert.is(body.synced, 100);
  assert.equal(
    body.errors.map((e: { code: string; slug: string }) => [e.code, e.slug]),
    [['repeated_page', '']],
  );
  assert.is(ctx.fake.listRequests().length, 2);
});

test('a provider that never sends a short page is stopped at the page limit', async ({ ctx }) => {
  ctx.fake.behaviour.pagination = 'endless';
  const res = await fullSync(ctx);
  assert.is(res.statusCode, 200);
  assert.is(res.json().synced, 300);
  assert.equal(
    res.json().errors.map((e: { code: string }) => e.code),
    ['too_many_pages'],
  );
  assert.is(ctx.fake.listRequests().length, 3);
});

test('a later page failing keeps what was synced and reports the page', async ({ ctx }) => {
  ctx.fake.failNext({ listOffset: 100 }, { status: 502, times: 3 });
  const res = await fullSync(ctx);
  assert.is(res.statusCode, 200);
  const body = res.json();
  assert.is(body.synced, 100);
  assert.equal(
    body.errors.map((e: { code: string; status?: number; slug: string }) => [e.slug, e.code, e.status]),
    [['', 'upstream_status', 502]],
  );
  assert.match(body.errors[0].message, 'offset=100');
});

test('the first page failing is a 502 with the same body shape', async ({ ctx }) => {
  ctx.fake.failNext('list', { status: 503, times: 3 });
  const res = await fullSync(ctx);
  assert.is(res.statusCode, 502);
  const body = res.json();
  assert.is(body.synced, 0);
  assert.equal(body.items, []);
  assert.is(body.errors[0].code, 'upstream_status');
  assert.is(body.errors[0].status, 503);
  assert.is(ctx.fake.listRequests().length, 3);
});

test('only one full sync at a time: a second one gets 409 sync_in_progress', async ({ ctx }) => {
  ctx.fake.behaviour.delayMs = 100;
  const first = fullSync(ctx);
  // Let the first take the lock before the second asks.
  while (ctx.fake.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  const second = await fullSync(ctx);
  assert.is(second.statusCode, 409);
  assert.is(second.json().code, 'sync_in_progress');
  assert.is((await first).statusCode, 200);
});

test('the lock holds across processes: a lock held on another connection refuses the sync', async ({
  ctx,
}) => {
  const other = new pg.Client(ctx.db.url);
  await other.connect();
  try {
    await other.query("SELECT pg_advisory_lock(hashtext('content-sync:full'))");
    const res = await fullSync(ctx);
    assert.is(res.statusCode, 409);
    assert.is(ctx.fake.requests.length, 0);
    await other.query("SELECT pg_advisory_unlock(hashtext('content-sync:full'))");
    assert.is((await fullSync(ctx)).statusCode, 200);
  } finally {
    await other.end();
  }
});

test.run();
