import type { Principal } from '../../auth/scopes.ts';
import { AppError } from '../../errors.ts';
import { isColumnId } from './ids.ts';
import type { TableColumn, TableState } from './table-state.ts';

export const tableNotFound = (tableId: string) => new AppError('not_found', `No table ${tableId}.`);
export const columnNotFound = (tableId: string, columnId: string) =>
  new AppError('not_found', `No column ${columnId} in table ${tableId}.`);
export const otherOrganization = () =>
  new AppError('forbidden', 'The table belongs to another organization.');

/** The member column of a loaded table, or 404. */
export function memberColumn(table: TableState, columnId: string): TableColumn {
  const column = isColumnId(columnId) ? table.columns.get(columnId) : undefined;
  if (!column) throw columnNotFound(table.id, columnId);
  return column;
}

/**
 * The same checks for a query, on the table's read-model row (undefined: no such table), which the
 * query reads together with what it answers.
 */
export function readableTable<Row extends { organization_id: string }>(
  row: Row | undefined,
  tableId: string,
  principal: Principal,
): Row {
  if (!row) throw tableNotFound(tableId);
  if (row.organization_id !== principal.organizationId) throw otherOrganization();
  return row;
}
