import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { listItemsOf, mapArticle } from '../../../src/content-api/mapping.ts';

const test = suite('content API mapping');

const mapped = (raw: unknown, slug?: string) => {
  const result = mapArticle(raw, slug);
  if (!result.ok) throw new Error(`expected a mapped article, got ${result.code}: ${result.message}`);
  return result.article;
};

test('a list page is a bare array or an array under posts, data, items, articles or results', () => {
  const items = [{ slug: 'a' }];
  assert.equal(listItemsOf(items), items);
  for (const key of ['posts', 'data', 'items', 'articles', 'results']) {
    assert.equal(listItemsOf({ [key]: items, total: 1 }), items, key);
  }
  assert.equal(listItemsOf({ data: { posts: items } }), items);
  assert.is(listItemsOf({ posts: 'nope' }), undefined);
  assert.is(listItemsOf('text'), undefined);
});

test('an article may come bare or wrapped in post, article or data', () => {
  const article = { slug: 'a', title: 'A', html: '<p>a</p>' };
  for (const raw of [article, { post: article }, { article }, { data: article }]) {
    assert.is(mapped(raw, 'a').html, '<p>a</p>');
  }
});

test('HTML under html, content_html, contentHtml, content, body or body.html', () => {
  for (const raw of [
    { html: '<p>x</p>' },
    { content_html: '<p>x</p>' },
    { contentHtml: '<p>x</p>' },
    { content: '<p>x</p>' },
    { body: '<p>x</p>' },
    { body: { html: '<p>x</p>' } },
  ]) {
    assert.is(mapped({ slug: 's', ...raw }).html, '<p>x</p>', JSON.stringify(raw));
  }
});

test('no HTML, or another slug than the one asked for, is an item error', () => {
  const noHtml = mapArticle({ slug: 's', title: 'T' }, 's');
  assert.equal(noHtml.ok ? undefined : noHtml.code, 'no_html');
  const other = mapArticle({ slug: 'other', html: '<p/>' }, 's');
  assert.equal(other.ok ? undefined : other.code, 'slug_mismatch');
  const notObject = mapArticle('text', 's');
  assert.equal(notObject.ok ? undefined : notObject.code, 'invalid_article');
  // A detail answer without a slug is taken for the slug asked for.
  assert.is(mapped({ html: '<p/>' }, 's').slug, 's');
});

test('title from title or headline; description from its seven names, tags stripped', () => {
  assert.is(mapped({ slug: 's', html: 'x', headline: 'H' }).title, 'H');
  assert.is(mapped({ slug: 's', html: 'x' }).title, 's');
  const descriptions: Record<string, unknown>[] = [
    { description: 'D' },
    { meta_description: 'D' },
    { metaDescription: 'D' },
    { metadescription: 'D' },
    { seo: { meta_description: 'D' } },
    { meta: { description: 'D' } },
    { excerpt: '<p>D</p>' },
  ];
  for (const d of descriptions)
    assert.is(mapped({ slug: 's', html: 'x', ...d }).description, 'D', JSON.stringify(d));
  assert.is(mapped({ slug: 's', html: 'x' }).description, null);
});

test('table of contents: strings or objects, anchors from id, anchor, slug or href, nested children', () => {
  for (const key of ['toc', 'table_of_contents', 'tableOfContents', 'outline']) {
    const toc = mapped({
      slug: 's',
      html: 'x',
      [key]: [
        'Plain Entry!',
        { text: 'By id', id: 'by-id', level: 2 },
        { title: 'By anchor', anchor: 'by-anchor' },
        { heading: 'By href', href: '/page#by-href', children: [{ text: 'Child', slug: 'child', level: 3 }] },
        { nothing: true },
      ],
    }).toc;
    assert.equal(
      toc,
      [
        { text: 'Plain Entry!', anchor: 'plain-entry', children: [] },
        { text: 'By id', anchor: 'by-id', level: 2, children: [] },
        { text: 'By anchor', anchor: 'by-anchor', children: [] },
        {
          text: 'By href',
          anchor: 'by-href',
          children: [{ text: 'Child', anchor: 'child', level: 3, children: [] }],
        },
      ],
      key,
    );
  }
});

test('JSON-LD: an object, an array or a string holding JSON; anything else is dropped', () => {
  const ld = { '@type': 'Article' };
  for (const key of ['json_ld', 'jsonLd', 'schema', 'structured_data']) {
    assert.equal(mapped({ slug: 's', html: 'x', [key]: ld }).jsonLd, ld, key);
  }
  assert.equal(mapped({ slug: 's', html: 'x', jsonLd: [ld, 3] }).jsonLd, [ld]);
  assert.equal(mapped({ slug: 's', html: 'x', jsonLd: JSON.stringify(ld) }).jsonLd, ld);
  assert.is(mapped({ slug: 's', html: 'x', jsonLd: '{not json' }).jsonLd, null);
  assert.is(mapped({ slug: 's', html: 'x', jsonLd: '"a string"' }).jsonLd, null);
  assert.is(mapped({ slug: 's', html: 'x', jsonLd: 12 }).jsonLd, null);
});

test('images from every alias, strings or { url, alt }; only http(s) URLs, no duplicates', () => {
  const images = mapped({
    slug: 's',
    html: 'x',
    image_url: 'https://i.test/1.png',
    imageUrl: 'https://i.test/2.png',
    cover_image: { url: 'https://i.test/3.png', alt: 'Three' },
    hero_image_url: 'javascript:alert(1)',
    featured_image: 'https://i.test/1.png',
    og_image: 'not a url',
    images: [
      'https://i.test/4.png',
      { url: 'http://i.test/5.png', alt: 'Five' },
      { src: 'https://i.test/6.png' },
    ],
  }).images;
  assert.equal(images, [
    { url: 'https://i.test/1.png' },
    { url: 'https://i.test/2.png' },
    { url: 'https://i.test/3.png', alt: 'Three' },
    { url: 'https://i.test/4.png' },
    { url: 'http://i.test/5.png', alt: 'Five' },
    { url: 'https://i.test/6.png' },
  ]);
});

test('dates from snake or camel case, as ISO 8601 UTC; unreadable dates are null', () => {
  const a = mapped({
    slug: 's',
    html: 'x',
    published_at: '2024-01-02T03:04:05+02:00',
    updatedAt: 1_700_000_000,
  });
  assert.is(a.publishedAt, '2024-01-02T01:04:05.000Z');
  assert.is(a.updatedAt, '2023-11-14T22:13:20.000Z');
  const b = mapped({ slug: 's', html: 'x', publishedAt: 'yesterday' });
  assert.is(b.publishedAt, null);
  assert.is(b.updatedAt, null);
});

test('a date naming a day the calendar does not have is an item error, never rolled over to the next month', () => {
  for (const [key, value] of [
    ['published_at', '2024-02-30T00:00:00Z'],
    ['publishedAt', '2023-02-29'],
    ['updated_at', '2024-04-31T10:00:00+02:00'],
    ['updatedAt', 'Fri, 30 Feb 2024 10:00:00 GMT'],
    ['published_at', 'February 30, 2024'],
    ['published_at', '02/30/2024'],
    ['published_at', '2024/02/30'],
  ] as const) {
    const result = mapArticle({ slug: 's', html: 'x', [key]: value }, 's');
    assert.is(result.ok, false, `${key}: ${value}`);
    if (result.ok) continue;
    assert.is(result.code, 'invalid_date');
    assert.match(result.message, key);
    assert.match(result.message, JSON.stringify(value));
  }
  // Real days in the same forms are read as before, 29 February of a leap year included.
  assert.is(
    mapped({ slug: 's', html: 'x', published_at: '2024-02-29T00:00:00Z' }).publishedAt,
    '2024-02-29T00:00:00.000Z',
  );
  assert.is(
    mapped({ slug: 's', html: 'x', published_at: 'Thu, 29 Feb 2024 10:00:00 GMT' }).publishedAt,
    '2024-02-29T10:00:00.000Z',
  );
  for (const value of ['March 1, 2024', '12/31/2023', 'May 2024', '2024-01-01T24:00:00Z']) {
    assert.ok(mapped({ slug: 's', html: 'x', updated_at: value }).updatedAt, value);
  }
});

test.run();
