import { DEFAULT_KIND } from '../../src/content-api/article.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { RSS_ITEMS, renderRss } from './site/feeds.ts';
import { digestEtag, notModified, PAGE_HEADERS, pageResponses } from './site/http-cache.ts';
import { siteContent } from './site/rows.ts';

/** GET /blog/rss.xml: the newest stored articles as an RSS 2.0 feed. */
export const rssRoutes: RouteModule = (app, deps) => {
  app.get(
    '/blog/rss.xml',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'getBlogFeed',
        tags: ['blog'],
        summary: 'RSS feed of the newest articles',
        response: pageResponses('application/rss+xml'),
        responseHeaders: PAGE_HEADERS,
      },
    },
    async (request, reply) => {
      const articles = await siteContent.page(deps.pool, DEFAULT_KIND, RSS_ITEMS, 0);
      const xml = renderRss(articles, deps.config.SITE_URL);
      reply.header('content-type', 'application/rss+xml; charset=utf-8');
      if (notModified(request, reply, { etag: digestEtag(xml) })) return reply.code(304).send();
      return reply.send(xml);
    },
  );
};
