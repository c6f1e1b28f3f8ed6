import { providerLookup } from '../../services/search/lookup.ts';
import { WebSearchAnswer, WebSearchBody } from '../../src/domain/search/schemas.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/**
 * POST /api/search/web and /api/search/news: SearXNG's general and news categories. A search changes
 * nothing but the credit balance, and is a POST because its question is a body.
 */
const webSearchRoute =
  (
    path: '/api/search/web' | '/api/search/news',
    operationId: 'searchWeb' | 'searchNews',
    category: 'general' | 'news',
  ): RouteModule =>
  (app, deps) => {
    const kind = category === 'news' ? 'news' : 'web';
    app.post(
      path,
      {
        config: { access: 'search:run' },
        schema: {
          operationId,
          tags: ['search'],
          summary: `Search the ${kind === 'news' ? 'news' : 'public web'} through the configured SearXNG`,
          body: WebSearchBody,
          response: { 200: WebSearchAnswer },
        },
      },
      async (request) => {
        const asked = { ...request.body, category };
        const { value, cached, provider } = await providerLookup(deps, request, 'web', (web) => ({
          operation: category === 'news' ? 'news_search' : 'web_search',
          request: asked,
          call: (options) => web.search(asked, options),
        }));
        return { results: value, provider, cached };
      },
    );
  };

export const webSearchRoutes = [
  webSearchRoute('/api/search/web', 'searchWeb', 'general'),
  webSearchRoute('/api/search/news', 'searchNews', 'news'),
];
