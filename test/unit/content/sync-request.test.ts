import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isCronAuthorized } from '../../../commands/content/cron-bearer.ts';
import { parseNamedSync } from '../../../services/content/sync-request.ts';
import type { ArticleContent } from '../../../src/content-api/article.ts';
import {
  type ArticleEvent,
  articleStream,
  contentHash,
  syncArticle,
} from '../../../src/domain/content/article.ts';
import { AppError } from '../../../src/errors.ts';
import { given, NOW } from '../../support/decider-spec.ts';

const test = suite('sync request and article decider');

const SERVED = ['blog', 'news'];
const slugs = (body: unknown) => parseNamedSync(body, SERVED).targets.map((t) => `${t.kind}/${t.slug}`);

test('{ items: [{ slug, kind }] }, kind defaulting to blog', () => {
  assert.equal(slugs({ items: [{ slug: 'a', kind: 'blog' }, { slug: 'b' }, { slug: 'c', kind: 'news' }] }), [
    'blog/a',
    'blog/b',
    'news/c',
  ]);
});

test('publish notifications: every common place of a slug, top level and under data', () => {
  const cases: [unknown, string[]][] = [
    [{ event_type: 'publish_articles', data: { articles: [{ slug: 'a' }, { slug: 'b' }] } }, ['a', 'b']],
    [{ event: 'publish_article', data: { article: { slug: 'a', html: '<script>x</script>' } } }, ['a']],
    [{ slug: 'a' }, ['a']],
    [{ slugs: ['a', 'b'] }, ['a', 'b']],
    [{ post: { slug: 'a' } }, ['a']],
    [{ post: { current: { slug: 'a' } } }, ['a']],
    [{ post: { slug: { current: 'a' } } }, ['a']],
    [{ entry: { slug: 'a' } }, ['a']],
    [{ data: { post: { slug: 'a' } } }, ['a']],
    [[{ slug: 'a' }], ['a']],
  ];
  for (const [body, expected] of cases) {
    assert.equal(
      slugs(body),
      expected.map((s) => `blog/${s}`),
      JSON.stringify(body),
    );
  }
});

test('trimmed and deduplicated; a bad slug or kind is an error entry, the others stay', () => {
  const { targets, rejected } = parseNamedSync(
    {
      slugs: [' a ', 'a', 'b c', '', 'x'.repeat(201), 'ok_1-2'],
      items: [{ slug: 'a', kind: 'Blog!' }],
    },
    SERVED,
  );
  assert.equal(
    targets.map((t) => t.slug),
    ['a', 'ok_1-2'],
  );
  assert.equal(
    rejected.map((r) => r.code),
    ['invalid_slug', 'invalid_slug', 'invalid_slug', 'invalid_kind'],
  );
  assert.ok(rejected.every((r) => r.slug.length <= 200));
});

test('no slug at all, a non-object body, or more than 100 slugs: a 400', () => {
  for (const body of [{}, { items: [] }, { data: { html: '<p>' } }, 'a', 3, null]) {
    assert.throws(
      () => parseNamedSync(body, SERVED),
      (e: unknown) => e instanceof AppError && e.status === 400,
      JSON.stringify(body),
    );
  }
  const names = Array.from({ length: 101 }, (_, i) => `s${i}`);
  assert.throws(
    () => parseNamedSync({ slugs: names }, SERVED),
    (e: unknown) => e instanceof AppError && /100/.test(e.detail),
  );
  assert.is(parseNamedSync({ slugs: names.slice(1) }, SERVED).targets.length, 100);
});

test('the cron bearer: exact secret only, never when none is configured', () => {
  assert.ok(isCronAuthorized('Bearer s3cret', 's3cret'));
  assert.ok(isCronAuthorized('bearer   s3cret ', 's3cret'));
  assert.not.ok(isCronAuthorized('Bearer s3cret', undefined));
  assert.not.ok(isCronAuthorized('Bearer s3cre', 's3cret'));
  assert.not.ok(isCronAuthorized('Bearer s3cretX', 's3cret'));
  assert.not.ok(isCronAuthorized('s3cret', 's3cret'));
  assert.not.ok(isCronAuthorized('Basic s3cret', 's3cret'));
  assert.not.ok(isCronAuthorized(undefined, 's3cret'));
});

const article: ArticleContent = {
  slug: 'a',
  title: 'A',
  description: null,
  html: '<p>a</p>',
  toc: [],
  jsonLd: null,
  images: [],
  publishedAt: '2024-01-01T00:00:00.000Z',
  updatedAt: null,
};
const at = NOW.toISOString();
/** The event a sync of `content` decides at NOW, stored with the hash `hash` (the present form by default). */
const synced = (
  content: ArticleContent,
  source: 'full' | 'named',
  hash = contentHash('blog', content),
): ArticleEvent => ({
  type: 'ArticleSynced',
  data: { ...content, kind: 'blog', contentHash: hash, source, fetchedAt: at },
});

test('decider: given no events, when synced, then ArticleSynced with the hash and the fetch time', () => {
  const events = given(syncArticle, [])
    .when({ kind: 'blog', article, source: 'named' })
    .thenEvents([synced(article, 'named')]);
  assert.is(events[0]!.data.contentHash, contentHash('blog', article));
  assert.is(events[0]!.data.fetchedAt, NOW.toISOString());
  assert.is(events[0]!.data.source, 'named');
  const state = events.reduce(articleStream.evolve, articleStream.initialState());
  // No provider update time: the publication time is the row's updated_at.
  assert.is(state.updatedAt, '2024-01-01T00:00:00.000Z');
});

test('content hash: any change of a field or of the HTML changes it; equal content hashes equal', () => {
  const base = contentHash('blog', article);
  assert.is(contentHash('blog', { ...article }), base);
  assert.is.not(contentHash('news', article), base);
  assert.is.not(contentHash('blog', { ...article, html: `${article.html} ` }), base);
  assert.is.not(contentHash('blog', { ...article, title: `${article.title}!` }), base);
  assert.is.not(contentHash('blog', { ...article, toc: [], description: 'other' }), base);
});

test('decider: given an article stored with the earlier form of the hash, when synced unchanged, then nothing', () => {
  const earlier = createHash('sha256')
    .update(JSON.stringify({ kind: 'blog', ...article }))
    .digest('hex');
  const stored = [synced(article, 'full', earlier)];
  given(syncArticle, stored).when({ kind: 'blog', article, source: 'full' }).thenEvents([]);
  const changed = { ...article, title: 'Another title' };
  given(syncArticle, stored)
    .when({ kind: 'blog', article: changed, source: 'full' })
    .thenEvents([synced(changed, 'full')]);
});

test('decider: given the same content, when synced again, then nothing', () => {
  const first = given(syncArticle, []).when({ kind: 'blog', article, source: 'full' }).events();
  given(syncArticle, first).when({ kind: 'blog', article, source: 'named' }).thenEvents([]);
  const changed = { ...article, html: '<p>b</p>' };
  given(syncArticle, first)
    .when({ kind: 'blog', article: changed, source: 'named' })
    .thenEvents([synced(changed, 'named')]);
});

test.run();
