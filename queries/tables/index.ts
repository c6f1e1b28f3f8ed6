import { getTableRoute } from './get-table.ts';
import { listTablesRoute } from './list-tables.ts';

export const tableQueries = [listTablesRoute, getTableRoute];
