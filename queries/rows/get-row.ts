import { ROW_FIELDS, ROWS, type RowRecord, storedFromRow } from '../../projections/rows/rows.ts';
import { etagOf } from '../../src/domain/columns/etag.ts';
import { rowNotFound } from '../../src/domain/rows/access.ts';
import { isRowId } from '../../src/domain/rows/ids.ts';
import { RowParams, RowSchema } from '../../src/domain/rows/schemas.ts';
import { rowView } from '../../src/domain/rows/view.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { readableColumns } from './table-columns.ts';

/** GET /api/tables/{tableId}/rows/{rowId}, with the ETag a PATCH's If-Match may send back. */
export const getRowRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/tables/:tableId/rows/:rowId',
    {
      config: { access: 'tables:read' },
      schema: {
        operationId: 'getRow',
        tags: ['rows'],
        summary: 'Get a row',
        params: RowParams,
        response: { 200: RowSchema },
        responseHeaders: { 200: ['ETag'] },
      },
    },
    async (request, reply) => {
      const { tableId, rowId } = request.params;
      const columns = await readableColumns(deps.pool, principalOf(request), tableId);
      if (!isRowId(rowId)) throw rowNotFound(tableId, rowId);
      const { rows } = await deps.pool.query<RowRecord>(
        `SELECT ${ROW_FIELDS} FROM ${ROWS} WHERE table_id = $1 AND id = $2`,
        [tableId, rowId],
      );
      const row = rows[0];
      if (!row) throw rowNotFound(tableId, rowId);
      return reply.header('etag', etagOf(BigInt(row.revision))).send(rowView(columns, storedFromRow(row)));
    },
  );
};
