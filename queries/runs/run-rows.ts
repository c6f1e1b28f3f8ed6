import { z } from 'zod';
import { RUN_ROWS } from '../../projections/runs/runs.ts';
import { isRowId } from '../../src/domain/rows/ids.ts';
import { RUN_ROW_STATUSES, RunParams, RunRowSchema } from '../../src/domain/runs/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, pageFrom, pageOf, pageQuery } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { readRun } from './read-run.ts';

const Query = pageQuery({ max: 1000, default: 100 }).extend({
  status: z.enum(RUN_ROW_STATUSES).optional().describe('Only rows with this outcome'),
});

interface Row {
  row_id: string;
  status: (typeof RUN_ROW_STATUSES)[number];
  error_code: string | null;
  error_message: string | null;
  http_status: number | null;
  duration_ms: number | null;
  attempts: number | null;
  updated_at: Date;
}

/** GET /api/runs/{runId}/rows?status=: each row's outcome with the executor's metadata, in row order. */
export const runRowsRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/runs/:runId/rows',
    {
      config: { access: 'jobs:read' },
      schema: {
        operationId: 'listRunRows',
        tags: ['runs'],
        summary: "A run's rows: outcome, HTTP status, duration, attempts, error",
        params: RunParams,
        querystring: Query,
        response: { 200: pageOf(RunRowSchema) },
      },
    },
    async (request) => {
      const { runId } = request.params;
      const { limit, cursor, status } = request.query;
      const after = cursor ? decodeCursor(cursor, 1, ([id]) => isRowId(id!))[0] : undefined;
      await readRun(deps.pool, principalOf(request), runId);
      const { rows } = await deps.pool.query<Row>(
        `SELECT * FROM ${RUN_ROWS} WHERE run_id = $1 AND ($2::text IS NULL OR status = $2)
           AND ($3::text IS NULL OR row_id > $3) ORDER BY row_id LIMIT $4`,
        [runId, status ?? null, after ?? null, limit + 1],
      );
      return pageFrom(
        rows,
        limit,
        (r) => ({
          rowId: r.row_id,
          status: r.status,
          error: r.error_code ? { code: r.error_code, message: r.error_message ?? '' } : null,
          httpStatus: r.http_status,
          durationMs: r.duration_ms,
          attempts: r.attempts,
          updatedAt: r.updated_at.toISOString(),
        }),
        (r) => [r.row_id],
      );
    },
  );
};
