import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ContentApp, cronHeaders, startContentApp } from '../../support/content-app.ts';
import { sampleArticles } from '../../support/content-samples.ts';

const test = suite<{ ctx: ContentApp }>('content sync: only the kinds the site serves');

test.before(async (context) => {
  context.ctx = await startContentApp({ articles: sampleArticles(), env: { CONTENT_KINDS: 'news' } });
});
test.after(async ({ ctx }) => ctx.close());
test.before.each(({ ctx }) => ctx.fake.reset());

const post = (ctx: ContentApp, body: unknown) =>
  ctx.app.inject({ method: 'POST', url: ctx.syncPath, payload: body as object });

const rows = async (ctx: ContentApp) =>
  (await ctx.db.pool.query('SELECT kind, slug FROM site_content ORDER BY kind, slug')).rows as {
    kind: string;
    slug: string;
  }[];

test('invented kinds are per-item errors: nothing is fetched or stored for them', async ({ ctx }) => {
  const invented = Array.from({ length: 100 }, (_, i) => ({ slug: 'getting-started', kind: `k${i}` }));
  const res = await post(ctx, { items: invented });
  assert.is(res.statusCode, 200);
  const body = res.json();
  assert.is(body.synced, 0);
  assert.equal(body.items, []);
  assert.is(body.errors.length, 100);
  body.errors.forEach((e: { slug: string; kind: string; code: string; message: string }, i: number) => {
    assert.equal([e.slug, e.kind, e.code], ['getting-started', `k${i}`, 'unknown_kind']);
    assert.match(e.message, 'blog, news');
  });
  assert.is(ctx.fake.requests.length, 0, 'nothing fetched');
  assert.equal(await ctx.articleEvents(), [], 'nothing appended');
  assert.equal(await rows(ctx), [], 'no row');
});

test('blog and the configured kinds sync beside a refused one; every item names its kind', async ({
  ctx,
}) => {
  const res = await post(ctx, {
    items: [
      { slug: 'getting-started', kind: 'news' },
      { slug: 'getting-started', kind: 'k0' },
      { slug: 'tolerant-reading' },
    ],
  });
  assert.is(res.statusCode, 200);
  const body = res.json();
  assert.equal(body.items, [
    { slug: 'getting-started', kind: 'news', updated_at: '2024-03-02T10:30:00.000Z' },
    { slug: 'tolerant-reading', kind: 'blog', updated_at: '2024-04-10T08:00:00.000Z' },
  ]);
  assert.equal(
    body.errors.map((e: { kind: string; code: string }) => [e.kind, e.code]),
    [['k0', 'unknown_kind']],
  );
  assert.equal((await ctx.articleEvents()).map((e) => e.stream).sort(), [
    'article-blog.tolerant-reading',
    'article-news.getting-started',
  ]);
  assert.ok(
    (await rows(ctx)).every((r) => r.kind !== 'k0'),
    'the refused kind has no row',
  );
  assert.equal(ctx.fake.detailPaths(), ['/posts/getting-started', '/posts/tolerant-reading']);
});

test('a CMS content type names the kind only when it is a served kind', async ({ ctx }) => {
  const contentful = (contentType: string) => ({
    sys: { type: 'Entry', contentType: { sys: { type: 'Link', linkType: 'ContentType', id: contentType } } },
    fields: { slug: { 'en-US': 'hostile-html' } },
  });
  const served = (await post(ctx, contentful('news'))).json();
  assert.equal(
    served.items.map((i: { kind: string; slug: string }) => `${i.kind}/${i.slug}`),
    ['news/hostile-html'],
  );
  const other = (await post(ctx, contentful('blogPost'))).json();
  assert.equal(
    other.items.map((i: { kind: string; slug: string }) => `${i.kind}/${i.slug}`),
    ['blog/hostile-html'],
  );
  assert.ok(
    (await ctx.articleEvents()).every((e) => !e.stream.startsWith('article-blogPost')),
    'never a kind the site does not serve',
  );
});

test('the full sync names the kind of every item', async ({ ctx }) => {
  const res = await ctx.app.inject({ method: 'GET', url: ctx.syncPath, headers: cronHeaders });
  assert.is(res.statusCode, 200);
  const items: { kind: string }[] = res.json().items;
  assert.is(items.length, sampleArticles().length);
  assert.ok(items.every((i) => i.kind === 'blog'));
});

test.run();
