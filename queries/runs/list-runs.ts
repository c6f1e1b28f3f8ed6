import { RUNS } from '../../projections/runs/runs.ts';
import { TABLES } from '../../projections/tables/tables.ts';
import { RunSchema } from '../../src/domain/runs/schemas.ts';
import { readableTable, tableNotFound } from '../../src/domain/tables/access.ts';
import { isTableId } from '../../src/domain/tables/ids.ts';
import { TableParams } from '../../src/domain/tables/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, isTimestamp, PageQuery, pageFrom, pageOf } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { isRunId, type RunRecord, runView } from './read-run.ts';

/** GET /api/tables/{tableId}/runs: the table's runs, newest first. */
export const listRunsRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/tables/:tableId/runs',
    {
      config: { access: 'jobs:read' },
      schema: {
        operationId: 'listRuns',
        tags: ['runs'],
        summary: "List a table's column runs, newest first",
        params: TableParams,
        querystring: PageQuery,
        response: { 200: pageOf(RunSchema) },
      },
    },
    async (request) => {
      const { tableId } = request.params;
      const { limit, cursor } = request.query;
      if (!isTableId(tableId)) throw tableNotFound(tableId);
      const after = cursor
        ? decodeCursor(cursor, 2, ([at, id]) => isTimestamp(at!) && isRunId(id!))
        : undefined;
      const { rows: table } = await deps.pool.query<{ organization_id: string }>(
        `SELECT organization_id FROM ${TABLES} WHERE id = $1`,
        [tableId],
      );
      readableTable(table[0], tableId, principalOf(request));
      const { rows } = await deps.pool.query<RunRecord>(
        `SELECT * FROM ${RUNS} WHERE table_id = $1
           AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::text))
         ORDER BY created_at DESC, id DESC LIMIT $4`,
        [tableId, after?.[0] ?? null, after?.[1] ?? null, limit + 1],
      );
      return pageFrom(rows, limit, runView, (r) => [r.created_at.toISOString(), r.id]);
    },
  );
};
