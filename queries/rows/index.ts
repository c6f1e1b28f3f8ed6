import { estimateRoute } from './estimate.ts';
import { getRowRoute } from './get-row.ts';
import { listRowsRoute } from './list-rows.ts';
import { queryRowsRoute } from './query-rows.ts';

export const rowQueries = [listRowsRoute, queryRowsRoute, getRowRoute, estimateRoute];
