import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { escapeHtml, escapeXml, jsonForScript } from '../../../queries/content/site/html.ts';
import { type CachedPage, PageCache } from '../../../queries/content/site/page-cache.ts';
import { sanitizeArticleHtml } from '../../../queries/content/site/sanitize.ts';

const test = suite('blog rendering helpers');

test('escapeHtml covers the five characters that change meaning in text and attributes', () => {
  assert.is(
    escapeHtml(`<a href="x" title='y'>&</a>`),
    '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
  );
  assert.is(escapeXml('a\u0001b<'), 'ab&lt;');
});

test('JSON for a script block: < as \\u003c, so </script> and <!-- cannot end or bend it', () => {
  const text = jsonForScript({ a: '</script><!-- & \u2028' });
  assert.not.match(text, '<');
  assert.not.match(text, '>');
  assert.match(text, '\\u003c/script\\u003e');
  assert.equal(JSON.parse(text), { a: '</script><!-- & \u2028' });
});

test('the sanitizer keeps structure, ids, images, tables, links and code; drops anything that runs', () => {
  const clean = sanitizeArticleHtml(
    '<h2 id="a" onclick="x()">A</h2><script>x()</script><style>p{}</style>' +
      '<a href="javascript:x()">j</a><a href="https://e.test" target="_blank">e</a>' +
      '<img src="https://i.test/a.png" onerror="x()" alt="a"><img src="data:image/png;base64,AA">' +
      '<table><tr><td colspan="2">t</td></tr></table><pre class="language-ts evil"><code class="language-ts">1</code></pre>' +
      '<iframe src="https://e.test"></iframe><form action="/x"><input></form><svg onload="x()"></svg>' +
      '<p style="position:fixed">p</p>',
  );
  assert.is(
    clean,
    '<h2 id="a">A</h2><a>j</a><a href="https://e.test" target="_blank" rel="noopener noreferrer">e</a>' +
      '<img src="https://i.test/a.png" alt="a" /><img />' +
      '<table><tr><td colspan="2">t</td></tr></table><pre class="language-ts"><code class="language-ts">1</code></pre>' +
      '<p>p</p>',
  );
});

const page = (hash: string, html = '<p>x</p>'): CachedPage => ({
  contentHash: hash,
  lastModified: new Date(0),
  etag: `"${hash}"`,
  html,
});

test('page cache: fresh for freshMs, then to be revalidated; invalidation wins over a render in flight', () => {
  const cache = new PageCache(1024 * 1024, 1000);
  cache.set('a', page('h1'), cache.currentEpoch, 10_000);
  assert.is(cache.get('a', 10_500)?.fresh, true);
  assert.is(cache.get('a', 11_000)?.fresh, false);
  cache.revalidated('a', 11_000);
  assert.is(cache.get('a', 11_500)?.fresh, true);
  const epoch = cache.currentEpoch;
  cache.invalidate('a');
  assert.is(cache.get('a'), undefined);
  // A render that began before the invalidation read the old row: it is not kept.
  cache.set('a', page('h1'), epoch);
  assert.is(cache.get('a'), undefined);
  cache.set('a', page('h2'), cache.currentEpoch);
  assert.is(cache.get('a')?.page.contentHash, 'h2');
});

test('page cache: bounded by size, least recently used out first', () => {
  // 1,200 characters count 2,400 bytes: four fit in 10,000, a fifth pushes one out.
  const cache = new PageCache(10_000, 1000);
  const html = 'x'.repeat(1200);
  for (const key of ['a', 'b', 'c', 'd']) cache.set(key, page(key, html), cache.currentEpoch);
  cache.get('a');
  cache.set('e', page('e', html), cache.currentEpoch);
  assert.ok(cache.get('a'), 'recently used');
  assert.is(cache.get('b'), undefined, 'least recently used');
  assert.ok(cache.get('c'));
  assert.ok(cache.get('e'));
});

test.run();
