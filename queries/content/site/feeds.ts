import { articlePath, escapeXml, siteUrl } from './html.ts';
import type { SiteArticleSummary } from './rows.ts';

/** The sitemap protocol's limit per file. */
export const SITEMAP_MAX_URLS = 50_000;
export const RSS_ITEMS = 50;

export function renderSitemap(articles: readonly SiteArticleSummary[], site: string): string {
  const urls = [`<url><loc>${escapeXml(siteUrl(site, '/blog'))}</loc></url>`];
  for (const a of articles) {
    urls.push(
      `<url><loc>${escapeXml(siteUrl(site, articlePath(a.slug)))}</loc><lastmod>${a.updated_at.toISOString()}</lastmod></url>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
${urls.join('\n')}
</urlset>
`;
}

export function renderRss(articles: readonly SiteArticleSummary[], site: string): string {
  const items = articles.map((a) => {
    const link = escapeXml(siteUrl(site, articlePath(a.slug)));
    const date = (a.published_at ?? a.updated_at).toUTCString();
    const description = a.description ? `<description>${escapeXml(a.description)}</description>` : '';
    return `<item><title>${escapeXml(a.title)}</title><link>${link}</link><guid isPermaLink="true">${link}</guid><pubDate>${date}</pubDate>${description}</item>`;
  });
  const newest = articles[0] ? `<lastBuildDate>${articles[0].synced_at.toUTCString()}</lastBuildDate>` : '';
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0">
<channel>
<title>Blog</title>
<link>${escapeXml(siteUrl(site, '/blog'))}</link>
<description>Articles</description>
${newest}
${items.join('\n')}
</channel>
</rss>
`;
}
