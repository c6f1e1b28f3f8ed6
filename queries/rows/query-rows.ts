import { z } from 'zod';
import { serializeAsIs } from '../../commands/rows/shared.ts';
import { FilterObjectSchema } from '../../src/domain/columns/filter-object.ts';
import { RunConditionSchema } from '../../src/domain/columns/run-condition.ts';
import { MAX_BATCH } from '../../src/domain/rows/schemas.ts';
import { TableParams } from '../../src/domain/tables/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { PageFields, RowPageSchema, readTablePage } from './list-rows.ts';
import { boundCondition, oneOfFilterOrCondition } from './predicate.ts';

export const QueryRowsBody = oneOfFilterOrCondition(
  z.strictObject({
    limit: z.number().int().min(1).max(MAX_BATCH).default(100),
    cursor: PageFields.cursor,
    sort: PageFields.sort,
    filter: FilterObjectSchema.optional(),
    condition: RunConditionSchema.optional().describe(
      'A run condition instead of a filter: eligible rows only',
    ),
  }),
);

/** POST /api/tables/{tableId}/rows/query: the list, for predicates too long for a URL. */
export const queryRowsRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tables/:tableId/rows/query',
    {
      config: { access: 'tables:read' },
      preValidation: boundCondition,
      serializerCompiler: serializeAsIs,
      schema: {
        operationId: 'queryRows',
        tags: ['rows'],
        summary: 'List the rows of a table that a filter or a run condition selects',
        description: 'As GET .../rows, in a body. A row is selected only when the whole predicate is true.',
        params: TableParams,
        body: QueryRowsBody,
        response: { 200: RowPageSchema },
      },
    },
    async (request, reply) => {
      return readTablePage(deps, principalOf(request), request.params.tableId, request.body, 'body', reply);
    },
  );
};
