import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseNamedSync } from '../../../services/content/sync-request.ts';
import { SLUG_SHAPES } from '../../../src/domain/content/sync-shapes.ts';
import { AppError } from '../../../src/errors.ts';
import { cmsNotifications } from '../../support/content-notifications.ts';

const test = suite('publish notification shapes and served kinds');

const BLOG_ONLY = ['blog'];
const targets = (body: unknown, served: readonly string[] = BLOG_ONLY) =>
  parseNamedSync(body, served).targets.map((t) => `${t.kind}/${t.slug}`);

// One body per shape of SLUG_SHAPES, by its documented path.
const perShape: Record<string, [unknown, string[]]> = {
  slug: [{ slug: 'a' }, ['blog/a']],
  'slugs[]': [{ slugs: ['a', 'b'] }, ['blog/a', 'blog/b']],
  'items[].slug': [{ items: [{ slug: 'a' }, 'b'] }, ['blog/a', 'blog/b']],
  'article.slug': [{ article: { slug: 'a' } }, ['blog/a']],
  'articles[].slug': [{ articles: [{ slug: 'a' }, { slug: 'b' }] }, ['blog/a', 'blog/b']],
  'post.slug': [{ post: { slug: 'a' } }, ['blog/a']],
  'post.current.slug': [{ post: { current: { slug: 'a' }, previous: { slug: 'old' } } }, ['blog/a']],
  'post.post_name': [{ post: { ID: 1, post_name: 'a' } }, ['blog/a']],
  post_name: [{ ID: 1, post_name: 'a', post_type: 'post' }, ['blog/a']],
  'entry.slug': [{ event: 'entry.publish', uid: 'api::article.article', entry: { slug: 'a' } }, ['blog/a']],
  'fields.slug': [{ fields: { slug: { 'en-US': 'a', 'fr-FR': 'b' } } }, ['blog/a', 'blog/b']],
  uid: [{ id: 'XoRhYhIAACIAqsYH', uid: 'a', type: 'blog_post', lang: 'en-us' }, ['blog/a']],
  full_slug: [{ action: 'published', story_id: 1, full_slug: 'blog/2024/a/' }, ['blog/a']],
  'entity.attributes.slug': [
    { entity_type: 'item', entity: { id: '1', attributes: { slug: 'a' } } },
    ['blog/a'],
  ],
  'fieldData.slug': [{ payload: { id: 'x', fieldData: { slug: 'a' } } }, ['blog/a']],
  'items[].fieldData.slug': [{ payload: { items: [{ fieldData: { slug: 'a' } }] } }, ['blog/a']],
  'data.id': [{ data: { id: 'a' }, webhook: { event: 'post.published' } }, ['blog/a']],
};

test('every shape has a case here, and each case names exactly its slugs', () => {
  assert.equal(Object.keys(perShape).sort(), SLUG_SHAPES.map((s) => s.path).sort());
  for (const [path, [body, expected]] of Object.entries(perShape)) {
    assert.equal(targets(body), expected, path);
  }
});

test('every shape is read at the top level, under data and under payload', () => {
  for (const [path, [body, expected]] of Object.entries(perShape)) {
    // ButterCMS's shape spans the top level and data; Webflow's sits under payload already.
    if (path === 'data.id' || path.includes('fieldData')) continue;
    assert.equal(targets({ data: body }), expected, `data: ${path}`);
    assert.equal(targets({ payload: body }), expected, `payload: ${path}`);
  }
});

for (const { cms, body, slugs } of cmsNotifications) {
  test(`${cms}: the slugs it names, nothing else`, () => {
    const { targets: found, rejected } = parseNamedSync(body, BLOG_ONLY);
    assert.equal(rejected, []);
    assert.equal(
      found.map((t) => t.slug),
      slugs,
    );
  });
}

test('ids are not slugs: Prismic api-update, ButterCMS pages, Strapi and Contentstack uids', () => {
  for (const body of [
    { type: 'api-update', documents: ['XoRhYhIAACIAqsYH'], apiUrl: 'https://repo.prismic.io/api' },
    { data: { id: 'a-page', page_type: 'landing' }, webhook: { event: 'page.published' } },
    { event: 'entry.publish', model: 'article', uid: 'api::article.article', entry: { id: 1 } },
    { event: 'publish', module: 'entry', uid: 'blt36952eb', data: { entry: { uid: 'blt1' } } },
  ]) {
    assert.throws(
      () => parseNamedSync(body, BLOG_ONLY),
      (e: unknown) => e instanceof AppError && e.status === 400,
      JSON.stringify(body),
    );
  }
});

test('kinds: blog by default; a kind that is not served is refused item by item', () => {
  const invented = Array.from({ length: 100 }, (_, i) => ({ slug: 'a', kind: `k${i}` }));
  const { targets: found, rejected } = parseNamedSync({ items: invented }, BLOG_ONLY);
  assert.equal(found, []);
  assert.is(rejected.length, 100);
  assert.ok(rejected.every((r, i) => r.code === 'unknown_kind' && r.kind === `k${i}` && r.slug === 'a'));
  assert.match(rejected[0]!.message, 'served kinds: blog');
  assert.equal(targets({ items: [{ slug: 'a', kind: 'news' }] }, ['blog', 'news']), ['news/a']);
});

test('a CMS content type picks the kind when it is served; otherwise the kind stays blog', () => {
  const served = ['blog', 'news', 'guide', 'page'];
  const cases: [unknown, string[]][] = [
    [{ sys: { contentType: { sys: { id: 'news' } } }, fields: { slug: { 'en-US': 'a' } } }, ['news/a']],
    [{ sys: { contentType: { sys: { id: 'blogPost' } } }, fields: { slug: 'a' } }, ['blog/a']],
    [{ _type: 'guide', slug: { _type: 'slug', current: 'a' } }, ['guide/a']],
    [{ model: 'news', entry: { slug: 'a' } }, ['news/a']],
    [{ post: { post_name: 'a', post_type: 'page' } }, ['page/a']],
    [{ uid: 'a', type: 'news' }, ['news/a']],
    [{ uid: 'a', type: 'blog_post' }, ['blog/a']],
    // A kind the body names wins over the hint.
    [{ _type: 'news', items: [{ slug: 'a', kind: 'guide' }] }, ['guide/a']],
  ];
  for (const [body, expected] of cases) assert.equal(targets(body, served), expected, JSON.stringify(body));
  // Unserved, a hint changes nothing: no kind is ever made up from it.
  assert.equal(targets({ model: 'news', entry: { slug: 'a' } }), ['blog/a']);
  const named = parseNamedSync({ _type: 'news', items: [{ slug: 'a', kind: 'k1' }] }, served);
  assert.equal(
    named.rejected.map((r) => r.code),
    ['unknown_kind'],
  );
});

test('docs/content-sync.md lists every shape', () => {
  const docs = readFileSync(new URL('../../../docs/content-sync.md', import.meta.url), 'utf8');
  for (const { path } of SLUG_SHAPES) assert.ok(docs.includes(`\`${path}\``), `${path} is not documented`);
});

test.run();
