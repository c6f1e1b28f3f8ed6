import { promptFromRow } from '../../projections/prompts/prompts.ts';
import { PromptParams, PromptSchema, VersionQuery } from '../../src/domain/prompts/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { readPromptVersion } from './prompt-versions.ts';

/** GET /api/prompts/{promptId}: the latest version, or `?version=N`. */
export const getPromptRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/prompts/:promptId',
    {
      config: { access: 'prompts:read' },
      schema: {
        operationId: 'getPrompt',
        tags: ['prompts'],
        summary: 'Get a prompt template: its latest version, or the one asked for',
        params: PromptParams,
        querystring: VersionQuery,
        response: { 200: PromptSchema },
      },
    },
    async (request) =>
      promptFromRow(
        await readPromptVersion(
          deps.pool,
          request.params.promptId,
          request.query.version,
          principalOf(request),
        ),
      ),
  );
};
