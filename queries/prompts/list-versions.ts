import {
  PROMPT_FIELDS,
  PROMPT_VERSIONS,
  type PromptRow,
  promptFromRow,
} from '../../projections/prompts/prompts.ts';
import { PromptParams, PromptSchema } from '../../src/domain/prompts/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, PageQuery, pageFrom, pageOf } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { readPromptVersion } from './prompt-versions.ts';

/** GET /api/prompts/{promptId}/versions: every version, oldest first, a page at a time. */
export const listVersionsRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/prompts/:promptId/versions',
    {
      config: { access: 'prompts:read' },
      schema: {
        operationId: 'listPromptVersions',
        tags: ['prompts'],
        summary: 'List the versions of a prompt template (each immutable)',
        params: PromptParams,
        querystring: PageQuery,
        response: { 200: pageOf(PromptSchema) },
      },
    },
    async (request) => {
      const { promptId } = request.params;
      const { limit, cursor } = request.query;
      const [after] = cursor ? decodeCursor(cursor, 1, ([v]) => /^\d{1,9}$/.test(v!)) : ['0'];
      // The latest version's row carries the access checks and the template's creation time.
      const latest = await readPromptVersion(deps.pool, promptId, undefined, principalOf(request));
      const { rows } = await deps.pool.query<PromptRow>(
        `SELECT prompt_id AS id, ${PROMPT_FIELDS}, $4::timestamptz AS created_at, created_at AS updated_at
         FROM ${PROMPT_VERSIONS} WHERE prompt_id = $1 AND version > $2 ORDER BY version LIMIT $3`,
        [promptId, Number(after), limit + 1, latest.created_at],
      );
      return pageFrom(rows, limit, promptFromRow, (row) => [String(row.version)]);
    },
  );
};
