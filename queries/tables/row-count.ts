import { ROW_STORAGE } from '../../projections/rows/rows.ts';
import type { Pool } from '../../src/db/pool.ts';

/**
 * A table's row count as the rows read model keeps it (projections/rows/storage.ts: moved by every
 * batch of inserts and deletes, never counted per request), as a column `row_count` of a select over
 * the tables read model (`tableId`: the SQL naming the table's id).
 */
export const rowCountColumn = (tableId: string) =>
  `coalesce((SELECT s.row_count FROM ${ROW_STORAGE} s WHERE s.table_id = ${tableId}), 0) AS row_count`;

export async function rowCountOf(pool: Pool, tableId: string): Promise<number> {
  const { rows } = await pool.query<{ row_count: string }>(`SELECT ${rowCountColumn('$1')}`, [tableId]);
  return Number(rows[0]!.row_count);
}
