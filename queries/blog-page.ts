import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { DEFAULT_KIND, SLUG_PATTERN } from '../src/content-api/article.ts';
import type { RouteModule } from '../src/http/app.ts';
import { ARTICLE_TEMPLATE_VERSION, renderArticlePage, renderNotFoundPage } from '../src/site/article-page.ts';
import { etagOf, htmlHeaders, notModified } from '../src/site/http-cache.ts';
import { siteContent } from '../src/site/rows.ts';

/** A 404 as a page a reader can follow back from; not cached for long, the article may come soon. */
export function sendNotFoundPage(reply: FastifyReply, what: string) {
  return htmlHeaders(reply).code(404).header('cache-control', 'no-cache').send(renderNotFoundPage(what));
}

/** GET /blog/:slug, from the stored row only: an outage of the content API changes nothing here. */
export const blogPageRoutes: RouteModule = (app, deps) => {
  app.get(
    '/blog/:slug',
    {
      config: { access: 'public' },
      schema: {
        tags: ['blog'],
        summary: 'An article page (HTML), from the stored row',
        params: z.object({ slug: z.string() }),
      },
    },
    async (request, reply) => {
      const { slug } = request.params;
      const article = SLUG_PATTERN.test(slug)
        ? await siteContent.article(deps.pool, DEFAULT_KIND, slug)
        : undefined;
      if (!article) return sendNotFoundPage(reply, 'There is no article at this address.');
      htmlHeaders(reply);
      const etag = etagOf(article.content_hash, ARTICLE_TEMPLATE_VERSION, deps.config.SITE_URL);
      if (notModified(request, reply, { etag, lastModified: article.synced_at }))
        return reply.code(304).send();
      return reply.send(renderArticlePage(article, deps.config.SITE_URL));
    },
  );
};
