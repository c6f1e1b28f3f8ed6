import { getRunRoute } from './get-run.ts';
import { listRunsRoute } from './list-runs.ts';
import { runRowsRoute } from './run-rows.ts';

export const runQueries = [getRunRoute, listRunsRoute, runRowsRoute];
