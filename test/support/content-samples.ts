/**
 * Articles as a content API might send them: each sample uses different field names for the same
 * things, so that the tolerant mapping is exercised end to end. Used by tests, the benchmark and the
 * local demo (`npm run demo:content-api`).
 */
export type RawArticle = Record<string, unknown> & { slug: string };

export function sampleArticles(imageBase?: string): RawArticle[] {
  const image = (name: string) =>
    imageBase ? `${imageBase}/images/${name}.png` : `https://images.example/${name}.png`;
  return [
    {
      slug: 'getting-started',
      title: 'Getting started with the blog',
      description: 'How articles travel from the content API to this site.',
      html:
        '<h2 id="why">Why a local copy</h2><p>The site keeps its own copy of every article.</p>' +
        '<h2 id="how">How it syncs</h2><p>A publish notification names slugs; each is refetched.</p>' +
        '<h3 id="how-full">Full sync</h3><p>A scheduler pages through every post.</p>' +
        `<p><img src="${image('diagram')}" alt="Sync diagram"></p>` +
        '<pre><code class="language-ts">const synced = await sync(slugs);</code></pre>',
      toc: [
        { text: 'Why a local copy', id: 'why', level: 2 },
        {
          text: 'How it syncs',
          anchor: 'how',
          level: 2,
          children: [{ title: 'Full sync', href: '#how-full', level: 3 }],
        },
      ],
      json_ld: {
        '@context': 'https://schema.org',
        '@type': 'BlogPosting',
        headline: 'Getting started with the blog',
      },
      image_url: image('getting-started'),
      published_at: '2024-03-01T09:00:00Z',
      updated_at: '2024-03-02T10:30:00Z',
    },
    {
      slug: 'tolerant-reading',
      headline: 'Tolerant reading of a content API',
      meta: { description: 'Many names for one field.' },
      content_html:
        '<h2 id="aliases">Aliases</h2><p>html, content_html, contentHtml, content or body.</p>' +
        '<table><tr><th>field</th><th>aliases</th></tr><tr><td>title</td><td>headline</td></tr></table>',
      tableOfContents: ['Aliases'],
      jsonLd: JSON.stringify({
        '@context': 'https://schema.org',
        '@type': 'Article',
        name: 'Tolerant reading',
      }),
      images: [{ url: image('aliases'), alt: 'Aliases' }],
      publishedAt: '2024-04-10T08:00:00Z',
    },
    {
      slug: 'hostile-html',
      title: 'An article whose HTML tries to run code',
      excerpt: '<p>Scripts in upstream HTML must never run.</p>',
      body: {
        html:
          '<h2 id="safe" onclick="window.__pwned = true">Safe heading</h2>' +
          '<script>window.__pwned = true; document.title = "pwned";</script>' +
          `<img src="${image('hostile')}" onerror="window.__pwned = true">` +
          '<a href="javascript:window.__pwned = true">a link</a>' +
          '<style>body { display: none }</style><p>Only text survives.</p>',
      },
      outline: [{ heading: 'Safe heading', id: 'safe' }],
      schema:
        '{"@context":"https://schema.org","@type":"Article","name":"</script><script>window.__pwned=true</script>"}',
      published_at: '2024-05-05T12:00:00Z',
    },
  ];
}

/** A paragraph-rich article of about `bytes` of HTML, with a heading per section and a TOC to match. */
export function generatedArticle(index: number, bytes = 20_000): RawArticle {
  const sections: string[] = [];
  const toc: { text: string; id: string; level: number }[] = [];
  let size = 0;
  for (let s = 0; size < bytes; s++) {
    const id = `section-${s}`;
    const section =
      `<h2 id="${id}">Section ${s} of article ${index}</h2>` +
      `<p>Lorem ipsum dolor sit amet, <a href="https://example.com/${index}/${s}">consectetur</a> adipiscing ` +
      'elit, sed do <strong>eiusmod</strong> tempor incididunt ut labore et dolore magna aliqua. Ut enim ad ' +
      'minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex ea commodo consequat.</p>' +
      `<ul><li>point one</li><li>point two</li></ul><pre><code class="language-js">const n = ${s};</code></pre>`;
    sections.push(section);
    toc.push({ text: `Section ${s} of article ${index}`, id, level: 2 });
    size += section.length;
  }
  const date = new Date(Date.UTC(2020, 0, 1) + index * 3_600_000).toISOString();
  return {
    slug: `article-${String(index).padStart(5, '0')}`,
    title: `Article number ${index}`,
    description: `The generated article number ${index}.`,
    html: sections.join(''),
    toc,
    json_ld: {
      '@context': 'https://schema.org',
      '@type': 'BlogPosting',
      headline: `Article number ${index}`,
    },
    image_url: `https://images.example/${index}.png`,
    published_at: date,
    updated_at: date,
  };
}
