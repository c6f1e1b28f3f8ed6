import { RUNS } from '../../projections/runs/runs.ts';
import { readColumn } from '../../queries/columns/get-column.ts';
import { readRun, runNotFound, runView } from '../../queries/runs/read-run.ts';
import { RunParams, RunSchema } from '../../src/domain/runs/schemas.ts';
import { ColumnParams } from '../../src/domain/tables/schemas.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { runVisible } from './start-run.ts';
import { activeRunOf, stopRun } from './stop-run.ts';

const description =
  'No row starts after the answer; rows already running finish; the rest are skipped and the run ends ' +
  'stopped. Stopping a run that has ended (or is stopping) changes nothing and answers 200.';

/** POST /api/runs/{runId}/stop */
export const stopRunRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/runs/:runId/stop',
    {
      config: { access: 'columns:run' },
      schema: {
        operationId: 'stopRun',
        tags: ['runs'],
        summary: 'Stop a run',
        description,
        params: RunParams,
        response: { 200: RunSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { runId } = request.params;
      await readRun(deps.pool, principal, runId);
      await runVisible(deps, await stopRun(deps, runId, eventMetadata(request)));
      return runView(await readRun(deps.pool, principal, runId));
    },
  );
};

/** POST /api/tables/{tableId}/columns/{columnId}/stop: stops the column's run in progress. */
export const stopColumnRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tables/:tableId/columns/:columnId/stop',
    {
      config: { access: 'columns:run' },
      schema: {
        operationId: 'stopColumnRun',
        tags: ['runs'],
        summary: "Stop the column's run in progress (or show its last run)",
        description: `${description} Without a run in progress, the column's last run is answered as it is; 404 when it never ran.`,
        params: ColumnParams,
        response: { 200: RunSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { tableId, columnId } = request.params;
      await readColumn(deps.pool, principal, tableId, columnId);
      const active = await activeRunOf(deps, tableId, columnId);
      if (active) await runVisible(deps, await stopRun(deps, active, eventMetadata(request)));
      const runId =
        active ??
        (
          await deps.pool.query<{ id: string }>(
            `SELECT id FROM ${RUNS} WHERE column_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
            [columnId],
          )
        ).rows[0]?.id;
      if (!runId) throw new AppError('not_found', `Column ${columnId} has never run.`);
      return runView(
        await readRun(deps.pool, principal, runId).catch((error) => {
          if (error instanceof AppError && error.code === 'not_found') throw runNotFound(runId);
          throw error;
        }),
      );
    },
  );
};
