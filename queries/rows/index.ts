import { getRowRoute } from './get-row.ts';
import { listRowsRoute } from './list-rows.ts';

export const rowQueries = [listRowsRoute, getRowRoute];
