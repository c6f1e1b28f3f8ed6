import { providerLookup } from '../../services/search/lookup.ts';
import { LinkedinSearchAnswer, LinkedinSearchBody } from '../../src/domain/linkedin/schemas.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/** POST /api/linkedin/search: people or companies on LinkedIn, through the LinkedIn data provider. */
export const linkedinSearchRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/linkedin/search',
    {
      config: { access: 'linkedin:read' },
      schema: {
        operationId: 'searchLinkedin',
        tags: ['linkedin'],
        summary: 'Search LinkedIn people or companies through the configured provider',
        body: LinkedinSearchBody,
        response: { 200: LinkedinSearchAnswer },
      },
    },
    async (request) => {
      const { value, cached, provider } = await providerLookup(deps, request, 'linkedin', (linkedin) => ({
        operation: 'linkedin_search',
        request: request.body,
        call: (options) => linkedin.search(request.body, options),
      }));
      return { results: value, provider, cached };
    },
  );
};
