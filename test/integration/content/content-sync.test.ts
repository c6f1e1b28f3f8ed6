import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ContentApp, cronHeaders, startContentApp } from '../../support/content-app.ts';
import { generatedArticle, sampleArticles } from '../../support/content-samples.ts';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

const test = suite<{ ctx: ContentApp }>('content sync endpoint');

test.before(async (context) => {
  context.ctx = await startContentApp({ articles: sampleArticles() });
});
test.after(async ({ ctx }) => ctx.close());
test.before.each(({ ctx }) => ctx.fake.reset());

const post = (ctx: ContentApp, body: unknown, headers: Record<string, string> = {}, remoteAddress?: string) =>
  ctx.app.inject({
    method: 'POST',
    url: ctx.syncPath,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
    ...(remoteAddress ? { remoteAddress } : {}),
  });

test('GET and empty POSTs without Authorization are a probe: ok, nothing synced', async ({ ctx }) => {
  const get = await ctx.app.inject({ method: 'GET', url: ctx.syncPath });
  assert.is(get.statusCode, 200);
  assert.equal(get.json(), { ok: true });
  const bare = await ctx.app.inject({ method: 'POST', url: ctx.syncPath });
  assert.equal(bare.json(), { ok: true });
  const empty = await post(ctx, '');
  assert.equal(empty.json(), { ok: true });
  const blank = await post(ctx, ' \n\t ');
  assert.is(blank.statusCode, 200);
  assert.equal(blank.json(), { ok: true });
  assert.is(ctx.fake.requests.length, 0);
  assert.equal(await ctx.articleEvents(), []);
});

test('a wrong or malformed bearer is a 401 problem and syncs nothing', async ({ ctx }) => {
  // From an address of its own: these failures count against it (content-sync-abuse.test.ts).
  const remoteAddress = '10.9.9.9';
  for (const authorization of [
    'Bearer nope',
    'Basic dGVzdA==',
    'Bearer',
    '',
    `Bearer ${cronHeaders.authorization}x`,
  ]) {
    const res = await ctx.app.inject({
      method: 'GET',
      url: ctx.syncPath,
      headers: { authorization },
      remoteAddress,
    });
    assert.is(res.statusCode, 401, authorization);
    assert.match(res.headers['content-type'] as string, 'application/problem+json');
    assert.is(res.json().code, 'unauthorized');
    const empty = await post(ctx, '', { authorization }, remoteAddress);
    assert.is(empty.statusCode, 401);
  }
  assert.is(ctx.fake.requests.length, 0);
  assert.equal(await ctx.articleEvents(), []);
});

test('POST naming items syncs exactly those slugs and answers per contract 2.2', async ({ ctx }) => {
  const res = await post(ctx, {
    items: [{ slug: 'getting-started', kind: 'blog' }, { slug: 'tolerant-reading' }],
  });
  assert.is(res.statusCode, 200);
  const body = res.json();
  assert.equal(Object.keys(body).sort(), ['errors', 'items', 'synced']);
  assert.is(body.synced, 2);
  assert.equal(
    body.items.map((i: { slug: string }) => i.slug),
    ['getting-started', 'tolerant-reading'],
  );
  assert.is(body.items[0].updated_at, '2024-03-02T10:30:00.000Z');
  for (const item of body.items) assert.match(item.updated_at, ISO_UTC);
  assert.equal(body.errors, []);
  assert.equal(ctx.fake.detailPaths(), ['/posts/getting-started', '/posts/tolerant-reading']);
  assert.ok(
    ctx.fake.requests.every((r) => r.authorized),
    'the content API key is sent as a bearer',
  );
  assert.is(ctx.fake.listRequests().length, 0);
  // Read-your-writes: the page is there as soon as the sync answered.
  const page = await ctx.app.inject({ method: 'GET', url: '/blog/getting-started' });
  assert.is(page.statusCode, 200);
  const events = await ctx.articleEvents();
  const synced = events.filter((e) => e.stream === 'article-blog.getting-started');
  assert.is(synced.length, 1);
  assert.is(synced[0]!.type, 'ArticleSynced');
  assert.is(synced[0]!.metadata.actor, 'system:sync');
  assert.is(synced[0]!.data.source, 'named');
  assert.is(typeof synced[0]!.metadata.correlationId, 'string');
  assert.match(String(synced[0]!.data.contentHash), /^[0-9a-f]{64}$/);
});

test('publish_article notifications in their common shapes name slugs; their HTML is ignored', async ({
  ctx,
}) => {
  const shapes: unknown[] = [
    {
      event_type: 'publish_articles',
      data: { articles: [{ slug: 'getting-started' }, { slug: 'hostile-html' }] },
    },
    {
      event: 'publish_article',
      data: { article: { slug: 'tolerant-reading', html: '<p>FROM THE WEBHOOK</p>' } },
    },
    { slug: 'getting-started' },
    { slugs: ['getting-started'] },
    { post: { slug: 'getting-started' } },
    { post: { current: { slug: 'getting-started' } } },
    { entry: { slug: 'getting-started' } },
    { data: { slug: 'getting-started' } },
    { data: { items: [{ slug: 'getting-started' }] } },
  ];
  for (const shape of shapes) {
    const res = await post(ctx, shape);
    assert.is(res.statusCode, 200, JSON.stringify(shape));
    assert.ok(res.json().synced >= 1, JSON.stringify(shape));
  }
  const page = await ctx.app.inject({ method: 'GET', url: '/blog/tolerant-reading' });
  assert.not.match(page.body, 'FROM THE WEBHOOK');
  assert.match(page.body, 'content_html, contentHtml');
});

test('slugs are trimmed and deduplicated; invalid ones become errors while the others go on', async ({
  ctx,
}) => {
  const res = await post(ctx, {
    items: [
      { slug: ' getting-started ' },
      { slug: 'getting-started' },
      { slug: '../etc/passwd' },
      { slug: 42 },
    ],
    slugs: ['-leading-dash', 'getting-started'],
  });
  assert.is(res.statusCode, 200);
  const body = res.json();
  assert.is(body.synced, 1);
  assert.equal(
    body.errors.map((e: { slug: string; code: string }) => [e.slug, e.code]),
    // In the order the body is read: slug, slugs[], items[], ...
    [
      ['-leading-dash', 'invalid_slug'],
      ['../etc/passwd', 'invalid_slug'],
      ['42', 'invalid_slug'],
    ],
  );
  for (const e of body.errors) {
    assert.is(e.kind, 'blog');
    assert.type(e.message, 'string');
  }
  assert.is(ctx.fake.detailRequests().length, 1);
});

test('a body that is not JSON, or names no slug, is a 400 problem; more than 100 slugs too', async ({
  ctx,
}) => {
  const notJson = await post(ctx, 'slug=getting-started', {
    'content-type': 'application/x-www-form-urlencoded',
  });
  assert.is(notJson.statusCode, 400);
  assert.is(notJson.json().code, 'malformed_json');
  assert.match(notJson.json().detail, 'not JSON');
  const broken = await post(ctx, '{"items": [');
  assert.is(broken.statusCode, 400);
  for (const body of [{}, { items: [] }, { event: 'publish_article', data: {} }, 'null', '"slug"', '17']) {
    const res = await post(ctx, body);
    assert.is(res.statusCode, 400, JSON.stringify(body));
    assert.match(res.json().detail, /slug/);
  }
  const many = await post(ctx, { slugs: Array.from({ length: 101 }, (_, i) => `s-${i}`) });
  assert.is(many.statusCode, 400);
  assert.match(many.json().detail, '100');
  assert.is(ctx.fake.requests.length, 0);
});

test('a request body over 1 MiB is a 413', async ({ ctx }) => {
  const res = await post(ctx, { slug: 'getting-started', padding: 'x'.repeat(1024 * 1024) });
  assert.is(res.statusCode, 413);
  assert.is(res.json().code, 'payload_too_large');
  assert.is(ctx.fake.requests.length, 0);
});

test('per-item failures are isolated errors; the sync still answers 200', async ({ ctx }) => {
  ctx.fake.overrideDetail('no-html', { slug: 'no-html', title: 'Nothing to show' });
  ctx.fake.overrideDetail('other-slug', { post: { slug: 'getting-started', html: '<p>x</p>' } });
  ctx.fake.failNext({ slug: 'tolerant-reading' }, { status: 503, times: 3 });
  const res = await post(ctx, {
    slugs: ['missing', 'no-html', 'other-slug', 'tolerant-reading', 'hostile-html'],
  });
  assert.is(res.statusCode, 200);
  const body = res.json();
  assert.equal(
    body.items.map((i: { slug: string }) => i.slug),
    ['hostile-html'],
  );
  assert.equal(
    body.errors.map((e: { slug: string; code: string; status?: number }) => [e.slug, e.code, e.status]),
    [
      ['missing', 'not_found', 404],
      ['no-html', 'no_html', undefined],
      ['other-slug', 'slug_mismatch', undefined],
      ['tolerant-reading', 'upstream_status', 503],
    ],
  );
  assert.is(ctx.fake.detailRequests('tolerant-reading').length, 3, 'three attempts on a 503');
});

test('an article dated 30 February is an invalid_date error, never stored as 1 March', async ({ ctx }) => {
  const slug = 'leap-day-typo';
  const dated = (published_at: string) => ({ slug, title: 'Typo', html: '<p>x</p>', published_at });
  ctx.fake.overrideDetail(slug, dated('2024-02-30T00:00:00Z'));
  const res = await post(ctx, { slug });
  assert.is(res.statusCode, 200);
  const body = res.json();
  assert.equal(body.items, []);
  assert.is(body.errors.length, 1);
  assert.equal(
    { ...body.errors[0], message: undefined },
    { slug, kind: 'blog', code: 'invalid_date', message: undefined },
  );
  assert.match(body.errors[0].message, 'published_at "2024-02-30T00:00:00Z" is not a day of the calendar');
  const stored = (await ctx.articleEvents()).filter((e) => e.stream === `article-blog.${slug}`);
  assert.equal(stored, []);
  assert.is((await ctx.app.inject({ method: 'GET', url: `/blog/${slug}` })).statusCode, 404);
  // A copy stored before keeps its own day when the provider later sends an impossible one.
  ctx.fake.overrideDetail(slug, dated('2024-02-29T00:00:00Z'));
  const first = (await post(ctx, { slug })).json();
  assert.equal(first.items, [{ slug, kind: 'blog', updated_at: '2024-02-29T00:00:00.000Z' }]);
  ctx.fake.overrideDetail(slug, { ...dated('2024-02-29T00:00:00Z'), updated_at: '2023-02-29T08:00:00Z' });
  const again = (await post(ctx, { slug })).json();
  assert.equal(
    again.errors.map((e: { code: string }) => e.code),
    ['invalid_date'],
  );
  const page = await ctx.app.inject({ method: 'GET', url: `/blog/${slug}` });
  assert.is(page.statusCode, 200);
  assert.not.match(page.body, '2023-03-01');
  assert.not.match(page.body, '2024-03-01');
});

test('re-syncing unchanged content appends nothing and still reports the item; a change appends', async ({
  ctx,
}) => {
  const article = generatedArticle(7, 2_000);
  ctx.fake.upsert(article);
  const first = (await post(ctx, { slug: article.slug })).json();
  const before = (await ctx.articleEvents()).length;
  const again = (await post(ctx, { slug: article.slug })).json();
  assert.equal(again.items, first.items);
  assert.is((await ctx.articleEvents()).length, before);
  // The page is rendered and cached before the change: the sync must drop it.
  const cached = await ctx.app.inject({ method: 'GET', url: `/blog/${article.slug}` });
  assert.not.match(cached.body, 'An added paragraph.');
  ctx.fake.upsert({
    ...article,
    html: `${article.html}<p>An added paragraph.</p>`,
    updated_at: '2030-01-01T00:00:00Z',
  });
  const changed = (await post(ctx, { slug: article.slug })).json();
  assert.equal(changed.items, [{ slug: article.slug, kind: 'blog', updated_at: '2030-01-01T00:00:00.000Z' }]);
  assert.is((await ctx.articleEvents()).length, before + 1);
  const page = await ctx.app.inject({ method: 'GET', url: `/blog/${article.slug}` });
  assert.match(page.body, 'An added paragraph.');
});

test('the full sync needs the cron bearer; the probe does not sync', async ({ ctx }) => {
  const res = await ctx.app.inject({ method: 'GET', url: ctx.syncPath, headers: cronHeaders });
  assert.is(res.statusCode, 200);
  assert.is(res.json().synced, sampleArticles().length + 1);
  assert.equal(ctx.fake.listRequests()[0]!.query, { kind: 'blog', limit: '100', offset: '0' });
  const events = await ctx.articleEvents();
  const cron = events.filter((e) => e.metadata.actor === 'system:cron');
  // Earlier tests stored these already; only changed content would append, and none changed.
  assert.is(cron.length, 0);
  const viaPost = await ctx.app.inject({ method: 'POST', url: ctx.syncPath, headers: cronHeaders });
  assert.is(viaPost.statusCode, 200);
  assert.is(viaPost.json().synced, sampleArticles().length + 1);
});

test.run();
