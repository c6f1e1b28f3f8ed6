import { RunParams, RunSchema } from '../../src/domain/runs/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { readRun, runView } from './read-run.ts';

/** GET /api/runs/{runId} */
export const getRunRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/runs/:runId',
    {
      config: { access: 'jobs:read' },
      schema: {
        operationId: 'getRun',
        tags: ['runs'],
        summary: 'Get a column run: status, counts, credits',
        params: RunParams,
        response: { 200: RunSchema },
      },
    },
    async (request) => runView(await readRun(deps.pool, principalOf(request), request.params.runId)),
  );
};
