import { EstimateBody } from '../../queries/rows/run-scope.ts';
import { readRun, runView } from '../../queries/runs/read-run.ts';
import { runFromEvent } from '../../queries/runs/run-from-event.ts';
import { RunSchema } from '../../src/domain/runs/schemas.ts';
import { ColumnParams } from '../../src/domain/tables/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { runVisible, startRun } from './start-run.ts';

export const runPath = (runId: string) => `/api/runs/${runId}`;

/** POST /api/tables/{tableId}/columns/{columnId}/run */
export const runColumnRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tables/:tableId/columns/:columnId/run',
    {
      config: { access: 'columns:run' },
      schema: {
        operationId: 'startColumnRun',
        tags: ['runs'],
        summary: 'Run a column over the eligible rows (202, Location: the run)',
        description:
          "The body is the estimate's. Credits are reserved at once: 402 insufficient_credits when the balance " +
          'does not cover one row; a balance that covers some rows runs those (in row order) and skips the rest. ' +
          '409 run_in_progress while the column has a run that has not ended.',
        params: ColumnParams,
        body: EstimateBody,
        response: { 202: RunSchema },
        responseHeaders: { 202: ['Location'] },
      },
    },
    async (request, reply) => {
      const { tableId, columnId } = request.params;
      const principal = principalOf(request);
      const { run, position } = await startRun(deps, {
        organizationId: principal.organizationId,
        tableId,
        columnId,
        scope: request.body,
        trigger: 'manual',
        metadata: eventMetadata(request),
      });
      const shown = await runVisible(deps, position);
      const view = shown ? runView(await readRun(deps.pool, principal, run.runId)) : runFromEvent(run);
      return reply.code(202).header('location', runPath(run.runId)).send(view);
    },
  );
};
