import { ColumnResponseSchema } from '../../processes/runs/providers/index.ts';
import { COLUMNS, type ColumnRow, columnFromRow } from '../../projections/columns/columns.ts';
import { TABLES } from '../../projections/tables/tables.ts';
import type { Principal } from '../../src/auth/scopes.ts';
import type { Pool } from '../../src/db/pool.ts';
import { etagOf } from '../../src/domain/columns/etag.ts';
import { columnNotFound, readableTable, tableNotFound } from '../../src/domain/tables/access.ts';
import { isColumnId, isTableId } from '../../src/domain/tables/ids.ts';
import { ColumnParams } from '../../src/domain/tables/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { PREFIXED_COLUMN_FIELDS } from './list-columns.ts';

const GET_COLUMN_SQL = `SELECT t.organization_id, ${PREFIXED_COLUMN_FIELDS}
  FROM ${TABLES} t LEFT JOIN ${COLUMNS} c ON c.table_id = t.id AND c.id = $2
  WHERE t.id = $1`;

/**
 * A column of a table the principal may read, from the read model: 404 for an unknown table or a
 * column not in it (an id of another table's column included), 403 for another organization's table.
 */
export async function readColumn(pool: Pool, principal: Principal, tableId: string, columnId: string) {
  if (!isTableId(tableId)) throw tableNotFound(tableId);
  const { rows } = await pool.query(GET_COLUMN_SQL, [tableId, isColumnId(columnId) ? columnId : null]);
  const row = readableTable(
    rows[0] as ({ organization_id: string } & ColumnRow) | undefined,
    tableId,
    principal,
  );
  if (row.id === null) throw columnNotFound(tableId, columnId);
  return { column: columnFromRow(row), revision: BigInt(row.revision) };
}

/** GET /api/tables/{tableId}/columns/{columnId}, with the ETag a PATCH's If-Match may send back. */
export const getColumnRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/tables/:tableId/columns/:columnId',
    {
      config: { access: 'tables:read' },
      schema: {
        operationId: 'getColumn',
        tags: ['columns'],
        summary: 'Get a column',
        params: ColumnParams,
        response: { 200: ColumnResponseSchema },
        responseHeaders: { 200: ['ETag'] },
      },
    },
    async (request, reply) => {
      const { tableId, columnId } = request.params;
      const { column, revision } = await readColumn(deps.pool, principalOf(request), tableId, columnId);
      return reply.header('etag', etagOf(revision)).send(column);
    },
  );
};
