import { z } from 'zod';
import { ColumnResponseSchema } from '../../processes/runs/providers/index.ts';
import { COLUMN_FIELDS, COLUMNS, type ColumnRow, columnFromRow } from '../../projections/columns/columns.ts';
import { RUNS } from '../../projections/runs/runs.ts';
import { TABLES } from '../../projections/tables/tables.ts';
import { readableTable, tableNotFound } from '../../src/domain/tables/access.ts';
import { isTableId } from '../../src/domain/tables/ids.ts';
import { TableParams } from '../../src/domain/tables/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/**
 * The column fields of the read model under the alias `c`, for the statements joining the table. A
 * column's status is `running` while a run of it has not ended (the runs read model says so), else
 * what its stream says (`idle`).
 */
export const PREFIXED_COLUMN_FIELDS = COLUMN_FIELDS.split(', ')
  .map((f) =>
    f === 'status'
      ? `CASE WHEN EXISTS (SELECT 1 FROM ${RUNS} r WHERE r.column_id = c.id AND r.finished_at IS NULL)
          THEN 'running' ELSE c.status END AS status`
      : `c.${f}`,
  )
  .join(', ');

/**
 * One round trip for the access check and the columns: the table's row (organization) joined with
 * its columns; no row at all means no table. The benchmark's bare route runs this same statement.
 */
export const LIST_COLUMNS_SQL = `SELECT t.organization_id, ${PREFIXED_COLUMN_FIELDS}
  FROM ${TABLES} t LEFT JOIN ${COLUMNS} c ON c.table_id = t.id
  WHERE t.id = $1 ORDER BY c.position, c.id`;

type Row = { organization_id: string } & (ColumnRow | { [K in keyof ColumnRow]: null });

/** GET /api/tables/{tableId}/columns (contract 4.3): the columns ordered by position. */
export const listColumnsRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/tables/:tableId/columns',
    {
      config: { access: 'tables:read' },
      // The hot read: the rows are mapped by a typed function, so re-checking 50 columns against the
      // schema on the way out buys nothing; the schema still types the handler and documents the answer.
      serializerCompiler: () => (data) => JSON.stringify(data),
      schema: {
        operationId: 'listColumns',
        tags: ['columns'],
        summary: 'List the columns of a table, ordered by position',
        params: TableParams,
        response: { 200: z.array(ColumnResponseSchema) },
      },
    },
    async (request) => {
      const { tableId } = request.params;
      if (!isTableId(tableId)) throw tableNotFound(tableId);
      const { rows } = await deps.pool.query<Row>(LIST_COLUMNS_SQL, [tableId]);
      readableTable(rows[0], tableId, principalOf(request));
      return rows.flatMap((row) => (row.id === null ? [] : [columnFromRow(row as ColumnRow)]));
    },
  );
};
