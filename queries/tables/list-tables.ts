import { z } from 'zod';
import { TABLES, type TableRow, tableFromRow } from '../../projections/tables/tables.ts';
import { TableSchema } from '../../src/domain/tables/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, isTimestamp, PageQuery, pageFrom, pageOf } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { rowCountColumn } from './row-count.ts';

const Query = PageQuery.extend({
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('only tables whose name contains this text, compared case-insensitively'),
});

/** GET /api/tables: the organization's tables, oldest first, a page at a time, optionally by name. */
export const listTablesRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/tables',
    {
      config: { access: 'tables:read' },
      schema: {
        operationId: 'listTables',
        tags: ['tables'],
        summary: 'List the research tables of the organization',
        querystring: Query,
        response: { 200: pageOf(TableSchema) },
      },
    },
    async (request) => {
      const { limit, cursor, name } = request.query;
      const [createdAt, id] = cursor ? decodeCursor(cursor, 2, ([at]) => isTimestamp(at!)) : [];
      // Case folded for all of Unicode as row conditions fold it (ILIKE on this C-locale database
      // folds ASCII only); strpos, not LIKE, so `%`, `_` and `\` in the name are plain characters.
      const { rows } = await deps.pool.query<TableRow & { row_count: string }>(
        `SELECT id, organization_id, name, created_at, updated_at, ${rowCountColumn('id')} FROM ${TABLES}
         WHERE organization_id = $1
           AND ($2::timestamptz IS NULL OR (created_at, id) > ($2::timestamptz, $3))
           AND ($4::text IS NULL OR strpos(lower(name COLLATE pg_c_utf8), lower($4 COLLATE pg_c_utf8)) > 0)
         ORDER BY created_at, id LIMIT $5`,
        [principalOf(request).organizationId, createdAt ?? null, id ?? '', name ?? null, limit + 1],
      );
      return pageFrom(
        rows,
        limit,
        (row) => ({ ...tableFromRow(row), rowCount: Number(row.row_count) }),
        (last) => [last.created_at.toISOString(), last.id],
      );
    },
  );
};
