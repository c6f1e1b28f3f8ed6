import { PromptParams, RenderBody, RenderSchema } from '../../src/domain/prompts/schemas.ts';
import { renderTemplate } from '../../src/domain/prompts/template.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { readPromptVersion } from './prompt-versions.ts';

/**
 * POST /api/prompts/{promptId}/render: the text of a version with these variables. A read (it writes
 * nothing), so prompts:read; a POST because the variables are a body. 422 names every variable that
 * is missing or unknown, or the one that makes the text longer than a render may be.
 */
export const renderPromptRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/prompts/:promptId/render',
    {
      config: { access: 'prompts:read' },
      schema: {
        operationId: 'renderPrompt',
        tags: ['prompts'],
        summary: 'Render a prompt template with variables',
        params: PromptParams,
        body: RenderBody,
        response: { 200: RenderSchema },
      },
    },
    async (request) => {
      const { promptId } = request.params;
      const { variables, version } = request.body;
      const row = await readPromptVersion(deps.pool, promptId, version, principalOf(request));
      const rendered = renderTemplate(row.template, row.variables, variables);
      if (!rendered.ok && rendered.tooLarge) {
        throw new AppError(
          'template_output_too_large',
          `Cannot render version ${row.version}: ${rendered.errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
          { errors: rendered.errors },
        );
      }
      if (!rendered.ok) {
        throw new AppError(
          'render_failed',
          `Cannot render version ${row.version}: ${rendered.errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
          { errors: rendered.errors },
        );
      }
      return { text: rendered.value, version: row.version };
    },
  );
};
