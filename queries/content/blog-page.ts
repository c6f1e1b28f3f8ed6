import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { DEFAULT_KIND, SLUG_PATTERN } from '../../src/content-api/article.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { ARTICLE_TEMPLATE_VERSION, renderArticlePage, renderNotFoundPage } from './site/article-page.ts';
import { digestEtag, htmlHeaders, notModified, PAGE_HEADERS, pageResponses } from './site/http-cache.ts';
import { type CachedPage, type PageCache, pageKey } from './site/page-cache.ts';
import { siteContent } from './site/rows.ts';

/** A 404 as a page a reader can follow back from; not cached for long, the article may come soon. */
export function sendNotFoundPage(reply: FastifyReply, what: string) {
  return htmlHeaders(reply).code(404).header('cache-control', 'no-cache').send(renderNotFoundPage(what));
}

/** The page of a stored article: from the process's cache while its row is unchanged, else rendered. */
async function articlePage(
  pool: Pool,
  cache: PageCache,
  site: string,
  slug: string,
): Promise<CachedPage | undefined> {
  const key = pageKey(DEFAULT_KIND, slug);
  const cached = cache.get(key);
  if (cached?.fresh) return cached.page;
  if (cached && (await siteContent.contentHash(pool, DEFAULT_KIND, slug)) === cached.page.contentHash) {
    cache.revalidated(key);
    return cached.page;
  }
  const epoch = cache.currentEpoch;
  const article = await siteContent.article(pool, DEFAULT_KIND, slug);
  if (!article) return undefined;
  const page: CachedPage = {
    contentHash: article.content_hash,
    lastModified: article.synced_at,
    etag: digestEtag(article.content_hash, ARTICLE_TEMPLATE_VERSION, site),
    html: renderArticlePage(article, site),
  };
  cache.set(key, page, epoch);
  return page;
}

/** GET /blog/:slug, from the stored row only: an outage of the content API changes nothing here. */
export const blogPageRoutes: RouteModule = (app, deps) => {
  app.get(
    '/blog/:slug',
    {
      config: { access: 'public' },
      schema: {
        operationId: 'getBlogArticle',
        tags: ['blog'],
        summary: 'An article page (HTML), from the stored row',
        response: pageResponses('text/html', { notFoundPage: true }),
        responseHeaders: PAGE_HEADERS,
        params: z.object({ slug: z.string() }),
      },
    },
    async (request, reply) => {
      const { slug } = request.params;
      const page = SLUG_PATTERN.test(slug)
        ? await articlePage(deps.pool, deps.parts.pageCache, deps.config.SITE_URL, slug)
        : undefined;
      if (!page) return sendNotFoundPage(reply, 'There is no article at this address.');
      htmlHeaders(reply);
      if (notModified(request, reply, page)) return reply.code(304).send();
      return reply.send(page.html);
    },
  );
};
