import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ContentApp, startContentApp } from '../../support/content-app.ts';
import { generatedArticle, type RawArticle, sampleArticles } from '../../support/content-samples.ts';

const TRICKY: RawArticle = {
  slug: 'tricky-title',
  title: "Quotes \" and <b>tags</b> & 'apostrophes'",
  description: '"><script>alert(1)</script>',
  html: '<p>ok</p>',
  toc: [{ text: '<img src=x>', id: '"><script>x</script>' }],
  image_url: 'https://img.test/a.png?x="y"&z=<w>',
  published_at: '2023-01-01T00:00:00Z',
};
const GENERATED = Array.from({ length: 42 }, (_, i) => generatedArticle(i, 400));
const ALL = [...sampleArticles(), TRICKY, ...GENERATED];

const test = suite<{ ctx: ContentApp }>('public blog pages');

test.before(async (context) => {
  context.ctx = await startContentApp({ articles: ALL });
  const res = await context.ctx.app.inject({
    method: 'GET',
    url: context.ctx.syncPath,
    headers: { authorization: 'Bearer test-cron-secret' },
  });
  assert.is(res.json().synced, ALL.length);
});
test.after(async ({ ctx }) => ctx.close());

const get = (ctx: ContentApp, url: string, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'GET', url, headers });

const jsonLdOf = (html: string): unknown[] =>
  [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((m) =>
    JSON.parse(m[1]!),
  );

test('an article page: title, description, canonical URL, Open Graph, JSON-LD, TOC and the article', async ({
  ctx,
}) => {
  const res = await get(ctx, '/blog/getting-started');
  assert.is(res.statusCode, 200);
  assert.match(res.headers['content-type'] as string, 'text/html');
  const html = res.body;
  assert.match(html, /^<!doctype html>/);
  assert.match(html, '<title>Getting started with the blog</title>');
  assert.match(
    html,
    '<meta name="description" content="How articles travel from the content API to this site.">',
  );
  assert.match(html, '<link rel="canonical" href="https://site.test/blog/getting-started">');
  assert.match(html, '<meta property="og:title" content="Getting started with the blog">');
  assert.match(html, '<meta property="og:description" content="How articles travel');
  assert.match(html, '<meta property="og:image" content="https://images.example/getting-started.png">');
  assert.equal(jsonLdOf(html), [
    { '@context': 'https://schema.org', '@type': 'BlogPosting', headline: 'Getting started with the blog' },
  ]);
  assert.match(html, /<nav class="toc"[^>]*>.*<a href="#why">Why a local copy<\/a>/s);
  for (const anchor of ['why', 'how', 'how-full']) {
    assert.match(html, `href="#${anchor}"`);
    assert.match(html, `id="${anchor}"`);
  }
  assert.match(html, '<pre><code class="language-ts">');
  assert.match(html, '<img src="https://images.example/diagram.png" alt="Sync diagram" />');
});

test('caching: ETag and Last-Modified with 304 answers, public max-age=60, stale-while-revalidate=600', async ({
  ctx,
}) => {
  const res = await get(ctx, '/blog/getting-started');
  assert.is(res.headers['cache-control'], 'public, max-age=60, stale-while-revalidate=600');
  const etag = res.headers.etag as string;
  const lastModified = res.headers['last-modified'] as string;
  assert.ok(etag && lastModified);
  const byEtag = await get(ctx, '/blog/getting-started', { 'if-none-match': etag });
  assert.is(byEtag.statusCode, 304);
  assert.is(byEtag.body, '');
  assert.is((await get(ctx, '/blog/getting-started', { 'if-none-match': `W/${etag}` })).statusCode, 304);
  assert.is((await get(ctx, '/blog/getting-started', { 'if-none-match': '"other"' })).statusCode, 200);
  assert.is((await get(ctx, '/blog/getting-started', { 'if-modified-since': lastModified })).statusCode, 304);
  const earlier = new Date(Date.parse(lastModified) - 60_000).toUTCString();
  assert.is((await get(ctx, '/blog/getting-started', { 'if-modified-since': earlier })).statusCode, 200);
  for (const url of ['/blog', '/sitemap.xml', '/blog/rss.xml']) {
    const first = await get(ctx, url);
    assert.is(first.headers['cache-control'], 'public, max-age=60, stale-while-revalidate=600', url);
    assert.is((await get(ctx, url, { 'if-none-match': first.headers.etag as string })).statusCode, 304, url);
  }
});

test('upstream HTML is sanitized: no script, style, handlers or javascript: URLs', async ({ ctx }) => {
  const html = (await get(ctx, '/blog/hostile-html')).body;
  const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  assert.equal(scripts, ['<script type="application/ld+json">']);
  assert.not.match(html, /onclick|onerror/i);
  assert.not.match(html, /javascript:/i);
  assert.not.match(html, 'display: none');
  assert.match(html, '<h2 id="safe">Safe heading</h2>');
  // The JSON-LD string held "</script>": written with \u003c it cannot close the element.
  assert.match(html, '\\u003c/script\\u003e');
  assert.equal(jsonLdOf(html), [
    {
      '@context': 'https://schema.org',
      '@type': 'Article',
      name: '</script><script>window.__pwned=true</script>',
    },
  ]);
  assert.match(html, '<meta name="description" content="Scripts in upstream HTML must never run.">');
});

test('every interpolated text is escaped', async ({ ctx }) => {
  const html = (await get(ctx, '/blog/tricky-title')).body;
  assert.match(html, '<title>Quotes &quot; and &lt;b&gt;tags&lt;/b&gt; &amp; &#39;apostrophes&#39;</title>');
  // Tags are stripped from a description (it is plain text); what remains is escaped.
  assert.match(html, '<meta name="description" content="&quot;&gt; alert(1)">');
  assert.match(html, '<a href="#&quot;&gt;&lt;script&gt;x&lt;/script&gt;">&lt;img src=x&gt;</a>');
  assert.match(html, 'content="https://img.test/a.png?x=&quot;y&quot;&amp;z=&lt;w&gt;"');
  assert.not.match(html, '<script>');
  const index = (await get(ctx, '/blog')).body;
  assert.match(index, 'Quotes &quot; and &lt;b&gt;tags');
});

test('an unknown or impossible slug is a 404 page in HTML', async ({ ctx }) => {
  for (const url of ['/blog/no-such-article', '/blog/..%2Fetc', `/blog/${'x'.repeat(201)}`]) {
    const res = await get(ctx, url);
    assert.is(res.statusCode, 404, url);
    assert.match(res.headers['content-type'] as string, 'text/html');
    assert.match(res.body, '<title>Not found</title>');
  }
  // A NUL in any path parameter is refused at the edge, for every route (docs/architecture.md).
  const nul = await get(ctx, '/blog/a%00b');
  assert.is(nul.statusCode, 400);
  assert.is(nul.json().errors[0].path, 'params.slug');
});

test('the index: newest first, 20 a page, ?page=N; past the end or nonsense is a 404', async ({ ctx }) => {
  const first = await get(ctx, '/blog');
  assert.is(first.statusCode, 200);
  const slugs = [...first.body.matchAll(/<h2><a href="\/blog\/([^"]+)">/g)].map((m) => m[1]);
  assert.is(slugs.length, 20);
  assert.is(slugs[0], 'hostile-html');
  assert.is(slugs[1], 'tolerant-reading');
  assert.is(slugs[2], 'getting-started');
  assert.match(first.body, 'href="/blog?page=2"');
  const last = await get(ctx, '/blog?page=3');
  assert.is(last.statusCode, 200);
  const lastSlugs = [...last.body.matchAll(/<h2><a href="\/blog\/([^"]+)">/g)].map((m) => m[1]);
  assert.is(lastSlugs.length, ALL.length - 40);
  assert.is(lastSlugs.at(-1), 'article-00000');
  assert.not.match(last.body, 'rel="next"');
  for (const page of ['4', '0', 'abc', '-1']) {
    assert.is((await get(ctx, `/blog?page=${page}`)).statusCode, 404, page);
  }
});

test('sitemap.xml lists the index and every stored article', async ({ ctx }) => {
  const res = await get(ctx, '/sitemap.xml');
  assert.is(res.statusCode, 200);
  assert.match(res.headers['content-type'] as string, 'application/xml');
  assert.match(res.body, '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
  assert.match(res.body, '<loc>https://site.test/blog</loc>');
  const locs = [...res.body.matchAll(/<loc>https:\/\/site\.test\/blog\/([^<]+)<\/loc>/g)];
  assert.is(locs.length, ALL.length);
  assert.match(res.body, /<lastmod>2024-03-02T10:30:00.000Z<\/lastmod>/);
});

test('rss.xml holds the newest articles', async ({ ctx }) => {
  const res = await get(ctx, '/blog/rss.xml');
  assert.is(res.statusCode, 200);
  assert.match(res.headers['content-type'] as string, 'application/rss+xml');
  const items = [...res.body.matchAll(/<item><title>([^<]*)<\/title><link>([^<]+)<\/link>/g)];
  assert.is(items.length, ALL.length);
  assert.is(items[0]![2], 'https://site.test/blog/hostile-html');
  assert.match(res.body, '<pubDate>Sun, 05 May 2024 12:00:00 GMT</pubDate>');
});

test('with the content API stopped, every stored page still answers 200', async ({ ctx }) => {
  await ctx.fake.close();
  for (const article of ALL) {
    const res = await get(ctx, `/blog/${article.slug}`);
    assert.is(res.statusCode, 200, article.slug);
  }
  for (const url of ['/blog', '/blog?page=2', '/sitemap.xml', '/blog/rss.xml']) {
    assert.is((await get(ctx, url)).statusCode, 200, url);
  }
});

test.run();
