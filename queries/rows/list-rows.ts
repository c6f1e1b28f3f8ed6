import { z } from 'zod';
import { serializeAsIs } from '../../commands/rows/shared.ts';
import { columnsByKey } from '../../src/domain/rows/cells.ts';
import { MAX_BATCH, RowSchema } from '../../src/domain/rows/schemas.ts';
import { TableParams } from '../../src/domain/tables/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/app.ts';
import { parseSort, readRowPage } from './row-page.ts';
import { readableColumns } from './table-columns.ts';

export const PageFields = {
  limit: z.coerce.number().int().min(1).max(MAX_BATCH).default(100),
  cursor: z.string().max(4000).optional().describe('nextCursor of the previous page'),
  sort: z
    .string()
    .max(1000)
    .optional()
    .describe('Column keys, comma-separated, `-` for descending (`-score,name`); ties by row id'),
};

export const RowPageSchema = z.object({ data: z.array(RowSchema), nextCursor: z.string().nullable() });

/** GET /api/tables/{tableId}/rows: a page of rows, oldest first unless sorted. */
export const listRowsRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/tables/:tableId/rows',
    {
      config: { access: 'tables:read' },
      serializerCompiler: serializeAsIs,
      schema: {
        tags: ['rows'],
        summary: 'List the rows of a table',
        params: TableParams,
        querystring: z.object(PageFields),
        response: { 200: RowPageSchema },
      },
    },
    async (request) => {
      const { tableId } = request.params;
      const { limit, cursor, sort } = request.query;
      const columns = await readableColumns(deps.pool, principalOf(request), tableId);
      return readRowPage(deps.pool, tableId, columns, {
        limit,
        cursor,
        sort: parseSort(sort, columnsByKey(columns), 'querystring.sort'),
        cursorPath: 'querystring.cursor',
      });
    },
  );
};
