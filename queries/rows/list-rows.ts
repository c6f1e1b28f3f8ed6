import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { serializeAsIs } from '../../commands/rows/shared.ts';
import type { Principal } from '../../src/auth/scopes.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import type { FilterObject } from '../../src/domain/columns/filter-object.ts';
import type { RunCondition } from '../../src/domain/columns/run-condition.ts';
import { columnsByKey } from '../../src/domain/rows/cells.ts';
import { MAX_BATCH, RowSchema } from '../../src/domain/rows/schemas.ts';
import { TableParams } from '../../src/domain/tables/schemas.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { pageMemoryFor } from './page-memory.ts';
import { filterFromQuery, rowPredicate } from './predicate.ts';
import { PAGE_BYTES, parseSort, type RowPage, readRowPage } from './row-page.ts';
import { columnsVersionSql, type TableColumns } from './table-columns.ts';

export const PageFields = {
  limit: z.coerce.number().int().min(1).max(MAX_BATCH).default(100),
  cursor: z.string().max(4000).optional().describe('nextCursor of the previous page'),
  sort: z
    .string()
    .max(1000)
    .optional()
    .describe('Column keys, comma-separated, `-` for descending (`-score,name`); ties by row id'),
};

const ListQuery = z.object({
  ...PageFields,
  filter: z
    .string()
    .max(64 * 1024)
    .optional()
    .describe(
      'A FilterObject as URL-encoded JSON; POST .../rows/query takes it (or a run condition) in a body',
    ),
});

export const RowPageSchema = z.object({
  data: z.array(RowSchema),
  nextCursor: z
    .string()
    .nullable()
    .describe(
      `The next page's cursor; null on the last page. A page ends at \`limit\` rows or at ${PAGE_BYTES / 1024 / 1024} MiB ` +
        'of cell data, whichever comes first (a row larger than that alone is a page by itself), so a page ' +
        'may hold fewer rows than the limit and still have a next one: follow nextCursor until it is null.',
    ),
});

/**
 * A page of a table's rows for a request that may carry a sort, a cursor and a filter or condition;
 * `where` the request carried them (paths of a 400 start there). The page's bytes are held in the
 * process's budget for rows pages until `reply` has been sent (page-memory.ts).
 *
 * The table's columns come from the service's cache when it has them, checked by the page's own
 * statement (no round trip of their own): a page that comes back empty, or a request refused, against
 * cached columns is read again against the columns read then, unless those are the same. So a column
 * created, moved or deleted (or the table deleted) is seen by the next request, in this process or
 * any other.
 */
export async function readTablePage(
  deps: Pick<ServiceDeps, 'pool' | 'parts'>,
  principal: Principal,
  tableId: string,
  input: { limit: number; cursor?: string; sort?: string; filter?: FilterObject; condition?: RunCondition },
  where: 'querystring' | 'body',
  reply: FastifyReply,
): Promise<RowPage> {
  const { pool } = deps;
  const cache = deps.parts.tableColumns;
  const memory = pageMemoryFor(reply, principal.organizationId);
  const at = (field: string) => (where === 'body' ? field : `${where}.${field}`);
  const read = ({ columns, version }: TableColumns, guarded: boolean) =>
    readRowPage(
      pool,
      tableId,
      columns,
      {
        limit: input.limit,
        cursor: input.cursor,
        sort: parseSort(input.sort, columnsByKey(columns), at('sort')),
        cursorPath: at('cursor'),
        where: rowPredicate(columns, input, where),
        guard: guarded
          ? (params) => `${columnsVersionSql(params.add(tableId))} = ${params.add(version)}`
          : undefined,
      },
      memory,
    );
  const cached = cache.get(tableId);
  if (cached?.organizationId === principal.organizationId) {
    let page: RowPage | undefined;
    try {
      page = await read(cached, true);
      if (page.data.length > 0) return page;
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'validation_failed')) throw error;
    }
    const fresh = await cache.load(pool, principal, tableId);
    if (page && fresh.version === cached.version) return page;
    return read(fresh, false);
  }
  return read(await cache.load(pool, principal, tableId), false);
}

/** GET /api/tables/{tableId}/rows: a page of rows, oldest first unless sorted. */
export const listRowsRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/tables/:tableId/rows',
    {
      config: { access: 'tables:read' },
      serializerCompiler: serializeAsIs,
      schema: {
        operationId: 'listRows',
        tags: ['rows'],
        summary: 'List the rows of a table',
        params: TableParams,
        querystring: ListQuery,
        response: { 200: RowPageSchema },
      },
    },
    async (request, reply) => {
      const { tableId } = request.params;
      const { filter, ...page } = request.query;
      return readTablePage(
        deps,
        principalOf(request),
        tableId,
        { ...page, filter: filterFromQuery(filter) },
        'querystring',
        reply,
      );
    },
  );
};
