import { DEFAULT_KIND } from '../../src/content-api/article.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { renderSitemap, SITEMAP_MAX_URLS } from './site/feeds.ts';
import { digestEtag, notModified, PAGE_HEADERS, pageResponses } from './site/http-cache.ts';
import { siteContent } from './site/rows.ts';

/** GET /sitemap.xml: the blog index and every stored article (one file holds up to 50,000 URLs). */
export const sitemapRoutes: RouteModule = (app, deps) => {
  app.get(
    '/sitemap.xml',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'getSitemap',
        tags: ['blog'],
        summary: 'Sitemap of the stored articles',
        response: pageResponses('application/xml'),
        responseHeaders: PAGE_HEADERS,
      },
    },
    async (request, reply) => {
      const articles = await siteContent.page(deps.pool, DEFAULT_KIND, SITEMAP_MAX_URLS - 1, 0);
      const xml = renderSitemap(articles, deps.config.SITE_URL);
      reply.header('content-type', 'application/xml; charset=utf-8');
      if (notModified(request, reply, { etag: digestEtag(xml) })) return reply.code(304).send();
      return reply.send(xml);
    },
  );
};
