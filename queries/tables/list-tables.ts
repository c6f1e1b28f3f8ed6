import { TABLES, type TableRow, tableFromRow } from '../../projections/tables/tables.ts';
import { TableSchema } from '../../src/domain/tables/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/app.ts';
import { decodeCursor, encodeCursor, PageQuery, pageFrom, pageOf } from '../../src/http/pagination.ts';

/** The cursor: the (createdAt, id) of the last table of the previous page. */
const cursorOf = (row: { created_at: Date; id: string }) =>
  encodeCursor(row.created_at.toISOString(), row.id);

/** GET /api/tables: the organization's tables, oldest first, a page at a time. */
export const listTablesRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/tables',
    {
      config: { access: 'tables:read' },
      schema: {
        tags: ['tables'],
        summary: 'List the research tables of the organization',
        querystring: PageQuery,
        response: { 200: pageOf(TableSchema) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const [createdAt, id] = cursor
        ? decodeCursor(cursor, 2, ([at]) => !Number.isNaN(Date.parse(at!)))
        : [null, ''];
      const { rows } = await deps.pool.query<TableRow>(
        `SELECT id, organization_id, name, created_at, updated_at FROM ${TABLES}
         WHERE organization_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3))
         ORDER BY created_at, id LIMIT $4`,
        [principalOf(request).organizationId, createdAt, id, limit + 1],
      );
      return pageFrom(rows, limit, tableFromRow, cursorOf);
    },
  );
};
