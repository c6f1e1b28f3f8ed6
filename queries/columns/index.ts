import { columnHistoryRoute } from './column-history.ts';
import { getColumnRoute } from './get-column.ts';
import { listColumnsRoute } from './list-columns.ts';

export const columnQueries = [listColumnsRoute, getColumnRoute, columnHistoryRoute];
