import { z } from 'zod';
import { DEFAULT_KIND } from '../../src/content-api/article.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { sendNotFoundPage } from './blog-page.ts';
import { digestEtag, htmlHeaders, notModified, PAGE_HEADERS, pageResponses } from './site/http-cache.ts';
import { INDEX_PAGE_SIZE, renderIndexPage } from './site/index-page.ts';
import { siteContent } from './site/rows.ts';

const MAX_PAGE = 100_000;

/** GET /blog?page=N: the stored articles, newest first. */
export const blogIndexRoutes: RouteModule = (app, deps) => {
  app.get(
    '/blog',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'getBlogIndex',
        tags: ['blog'],
        summary: 'The article index (HTML), newest first',
        response: pageResponses('text/html', { notFoundPage: true }),
        responseHeaders: PAGE_HEADERS,
        querystring: z.object({ page: z.string().optional() }),
      },
    },
    async (request, reply) => {
      const given = request.query.page;
      const page = given === undefined ? 1 : /^\d{1,6}$/.test(given) ? Number(given) : 0;
      if (page < 1 || page > MAX_PAGE) return sendNotFoundPage(reply, 'There is no such page of articles.');
      const [articles, total] = await Promise.all([
        siteContent.page(deps.pool, DEFAULT_KIND, INDEX_PAGE_SIZE, (page - 1) * INDEX_PAGE_SIZE),
        siteContent.count(deps.pool, DEFAULT_KIND),
      ]);
      const pages = Math.max(1, Math.ceil(total / INDEX_PAGE_SIZE));
      if (page > pages) return sendNotFoundPage(reply, 'There is no such page of articles.');
      const html = renderIndexPage(articles, page, pages, deps.config.SITE_URL);
      htmlHeaders(reply);
      if (notModified(request, reply, { etag: digestEtag(html) })) return reply.code(304).send();
      return reply.send(html);
    },
  );
};
