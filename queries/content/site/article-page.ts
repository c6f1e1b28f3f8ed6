import type { TocEntry } from '../../../src/content-api/article.ts';
import { articlePath, escapeHtml, jsonForScript, siteUrl } from './html.ts';
import { formatDate, renderDocument } from './layout.ts';
import type { SiteArticle } from './rows.ts';
import { sanitizeArticleHtml } from './sanitize.ts';

function tocList(entries: readonly TocEntry[]): string {
  const items = entries.map((entry) => {
    const children = entry.children.length > 0 ? tocList(entry.children) : '';
    return `<li><a href="#${escapeHtml(entry.anchor)}">${escapeHtml(entry.text)}</a>${children}</li>`;
  });
  return `<ol>${items.join('')}</ol>`;
}

/** Every meta tag a crawler or a link preview reads. */
function headOf(article: SiteArticle, canonical: string): string {
  const description = article.description ?? '';
  const image = article.images[0];
  const tags = [
    `<meta name="description" content="${escapeHtml(description)}">`,
    `<link rel="canonical" href="${escapeHtml(canonical)}">`,
    '<meta property="og:type" content="article">',
    `<meta property="og:title" content="${escapeHtml(article.title)}">`,
    `<meta property="og:description" content="${escapeHtml(description)}">`,
    `<meta property="og:url" content="${escapeHtml(canonical)}">`,
  ];
  if (image) {
    tags.push(`<meta property="og:image" content="${escapeHtml(image.url)}">`);
    if (image.alt) tags.push(`<meta property="og:image:alt" content="${escapeHtml(image.alt)}">`);
    tags.push('<meta name="twitter:card" content="summary_large_image">');
  }
  if (article.published_at) {
    tags.push(`<meta property="article:published_time" content="${article.published_at.toISOString()}">`);
  }
  tags.push(`<meta property="article:modified_time" content="${article.updated_at.toISOString()}">`);
  if (article.json_ld)
    tags.push(`<script type="application/ld+json">${jsonForScript(article.json_ld)}</script>`);
  return tags.join('\n');
}

/** Part of every article page's ETag: bump when the template or the sanitizer changes what a row renders to. */
export const ARTICLE_TEMPLATE_VERSION = '1';

/** /blog/<slug>: the stored article, sanitized here, in the site's page with its table of contents. */
export function renderArticlePage(article: SiteArticle, site: string): string {
  const canonical = siteUrl(site, articlePath(article.slug));
  const date = article.published_at ?? article.updated_at;
  const toc =
    article.toc.length > 0
      ? `<nav class="toc" aria-label="Table of contents"><strong>Contents</strong>${tocList(article.toc)}</nav>`
      : '';
  const body = `<article>
<h1>${escapeHtml(article.title)}</h1>
<p class="meta"><time datetime="${date.toISOString()}">${escapeHtml(formatDate(date))}</time></p>
${toc}
<div class="content">
${sanitizeArticleHtml(article.upstream_html)}
</div>
</article>`;
  return renderDocument({ title: article.title, head: headOf(article, canonical), body });
}

export function renderNotFoundPage(what: string): string {
  return renderDocument({
    title: 'Not found',
    head: '<meta name="robots" content="noindex">',
    body: `<h1>Not found</h1>\n<p>${escapeHtml(what)}</p>\n<p><a href="/blog">All articles</a></p>`,
  });
}
