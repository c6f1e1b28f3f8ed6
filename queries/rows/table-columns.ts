import { type ColumnRow, columnFromRow } from '../../projections/columns/columns.ts';
import type { Principal } from '../../src/auth/scopes.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { Column } from '../../src/domain/columns/fields.ts';
import { readableTable, tableNotFound } from '../../src/domain/tables/access.ts';
import { isTableId } from '../../src/domain/tables/ids.ts';
import { LIST_COLUMNS_SQL } from '../columns/list-columns.ts';

/**
 * The columns of a table the principal may read, in one round trip (the table's row joined with its
 * columns): 404 for an unknown table or an id of the wrong form, 403 for another organization's.
 * Every read of rows goes through these: they name the cells (by key) and leave out a deleted column's.
 */
export async function readableColumns(pool: Pool, principal: Principal, tableId: string): Promise<Column[]> {
  if (!isTableId(tableId)) throw tableNotFound(tableId);
  const { rows } = await pool.query<{ organization_id: string } & ColumnRow>(LIST_COLUMNS_SQL, [tableId]);
  readableTable(rows[0], tableId, principal);
  return rows.flatMap((row) => (row.id === null ? [] : [columnFromRow(row)]));
}
