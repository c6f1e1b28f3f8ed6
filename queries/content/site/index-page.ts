import { articlePath, escapeHtml, siteUrl } from './html.ts';
import { formatDate, renderDocument } from './layout.ts';
import type { SiteArticleSummary } from './rows.ts';

export const INDEX_PAGE_SIZE = 20;

/** /blog?page=N: newest first, with links to the neighbouring pages. */
export function renderIndexPage(
  articles: readonly SiteArticleSummary[],
  page: number,
  pages: number,
  site: string,
): string {
  const items = articles.map((a) => {
    const date = a.published_at ?? a.updated_at;
    const description = a.description ? `<p>${escapeHtml(a.description)}</p>` : '';
    return `<li><h2><a href="${escapeHtml(articlePath(a.slug))}">${escapeHtml(a.title)}</a></h2>
<p class="meta"><time datetime="${date.toISOString()}">${escapeHtml(formatDate(date))}</time></p>${description}</li>`;
  });
  const pager: string[] = [];
  if (page > 1) pager.push(`<a rel="prev" href="/blog${page > 2 ? `?page=${page - 1}` : ''}">Newer</a>`);
  if (page < pages) pager.push(`<a rel="next" href="/blog?page=${page + 1}">Older</a>`);
  const canonical = siteUrl(site, page > 1 ? `/blog?page=${page}` : '/blog');
  const body = `<h1>Blog</h1>
${items.length > 0 ? `<ul class="articles">${items.join('\n')}</ul>` : '<p>No articles yet.</p>'}
${pager.length > 0 ? `<nav class="pager" aria-label="Pages">${pager.join('')}</nav>` : ''}`;
  return renderDocument({
    title: page > 1 ? `Blog (page ${page})` : 'Blog',
    head: `<link rel="canonical" href="${escapeHtml(canonical)}">`,
    body,
  });
}
