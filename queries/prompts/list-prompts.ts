import { PROMPT_FIELDS, PROMPTS, type PromptRow, promptFromRow } from '../../projections/prompts/prompts.ts';
import { PromptSchema } from '../../src/domain/prompts/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, isTimestamp, PageQuery, pageFrom, pageOf } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/** The latest version of each template, as the read model's rows (callers add WHERE and ORDER). */
export const LATEST_PROMPTS = `SELECT id, ${PROMPT_FIELDS}, created_at, updated_at FROM ${PROMPTS}`;

const cursorOf = (row: PromptRow) => [row.created_at.toISOString(), row.id];

/** GET /api/prompts: the organization's templates (latest versions), oldest first, a page at a time. */
export const listPromptsRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/prompts',
    {
      config: { access: 'prompts:read' },
      schema: {
        operationId: 'listPrompts',
        tags: ['prompts'],
        summary: 'List the prompt templates of the organization (latest versions)',
        querystring: PageQuery,
        response: { 200: pageOf(PromptSchema) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const [createdAt, id] = cursor ? decodeCursor(cursor, 2, ([at]) => isTimestamp(at!)) : [null, ''];
      const { rows } = await deps.pool.query<PromptRow>(
        `${LATEST_PROMPTS}
         WHERE organization_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3))
         ORDER BY created_at, id LIMIT $4`,
        [principalOf(request).organizationId, createdAt, id, limit + 1],
      );
      return pageFrom(rows, limit, promptFromRow, cursorOf);
    },
  );
};
