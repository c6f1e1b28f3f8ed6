import { createColumnRoute } from '../../commands/create-column.ts';
import { createTableRoute } from '../../commands/create-table.ts';
import { deleteColumnRoute } from '../../commands/delete-column.ts';
import { patchColumnRoute } from '../../commands/patch-column.ts';
import { renameTableRoute } from '../../commands/rename-table.ts';
import { reorderColumnsRoute } from '../../commands/reorder-columns.ts';
import { columnsProjection } from '../../projections/columns.ts';
import { tablesProjection } from '../../projections/tables.ts';
import { columnHistoryRoute } from '../../queries/column-history.ts';
import { getColumnRoute } from '../../queries/get-column.ts';
import { getTableRoute } from '../../queries/get-table.ts';
import { listColumnsRoute } from '../../queries/list-columns.ts';
import { listTablesRoute } from '../../queries/list-tables.ts';
import { accounts, bearer, call, type Target } from './accounts.ts';
import { startTestApp, type TestApp } from './app.ts';

/** The tables-and-columns feature: its read models and routes, as src/modules.ts lists them. */
export const tablesFeature = {
  projections: [tablesProjection, columnsProjection],
  routes: [
    createTableRoute,
    listTablesRoute,
    getTableRoute,
    renameTableRoute,
    createColumnRoute,
    listColumnsRoute,
    getColumnRoute,
    patchColumnRoute,
    deleteColumnRoute,
    reorderColumnsRoute,
    columnHistoryRoute,
  ],
};

/** An app with accounts (for keys) and tables and columns over a fresh database. */
export function startTablesApp(): Promise<TestApp> {
  return startTestApp({
    projections: [...accounts.projections, ...tablesFeature.projections],
    routes: [...accounts.routes, ...tablesFeature.routes],
    authenticator: accounts.authenticator,
    // STK_TEST_LOG_LEVEL=error shows the server's side of a failing test.
    env: process.env.STK_TEST_LOG_LEVEL ? { LOG_LEVEL: process.env.STK_TEST_LOG_LEVEL } : {},
  });
}

/** Creates a table and returns its id (throws on anything but 201). */
export async function createTable(target: Target, apiKey: string, name = 'Leads'): Promise<string> {
  const res = await call(target, 'POST', '/api/tables', { headers: bearer(apiKey), body: { name } });
  if (res.status !== 201)
    throw new Error(`creating a table failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Creates a column and returns it (throws on anything but 201). */
export async function createColumn(
  target: Target,
  apiKey: string,
  tableId: string,
  body: object,
  // biome-ignore lint/suspicious/noExplicitAny: a column is arbitrary JSON that tests pick apart
): Promise<any> {
  const res = await call(target, 'POST', `/api/tables/${tableId}/columns`, { headers: bearer(apiKey), body });
  if (res.status !== 201)
    throw new Error(`creating a column failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A condition leaf on a column key (missingPolicy unknown). */
export const leaf = (columnKey: string, operator: string, extra: object = {}) => ({
  type: 'condition',
  columnKey,
  operator,
  missingPolicy: 'unknown',
  ...extra,
});
