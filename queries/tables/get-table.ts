import { TABLES, type TableRow, tableFromRow } from '../../projections/tables/tables.ts';
import { readableTable, tableNotFound } from '../../src/domain/tables/access.ts';
import { isTableId } from '../../src/domain/tables/ids.ts';
import { TableParams, TableSchema } from '../../src/domain/tables/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { rowCountColumn } from './row-count.ts';

/** GET /api/tables/{tableId} */
export const getTableRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/tables/:tableId',
    {
      config: { access: 'tables:read' },
      schema: {
        operationId: 'getTable',
        tags: ['tables'],
        summary: 'Get a research table',
        params: TableParams,
        response: { 200: TableSchema },
      },
    },
    async (request) => {
      const { tableId } = request.params;
      if (!isTableId(tableId)) throw tableNotFound(tableId);
      const { rows } = await deps.pool.query<TableRow & { row_count: string }>(
        `SELECT id, organization_id, name, created_at, updated_at, ${rowCountColumn('id')}
         FROM ${TABLES} WHERE id = $1`,
        [tableId],
      );
      const row = readableTable(rows[0], tableId, principalOf(request));
      return { ...tableFromRow(row), rowCount: Number(row.row_count) };
    },
  );
};
