import { service } from '../../app/modules.ts';
import { rowIndexesWorker } from '../../processes/rows/row-indexes.ts';
import { ROW_STORAGE, ROWS, rowsProjection } from '../../projections/rows/rows.ts';
import { createAuthenticator } from '../../services/accounts/authenticator.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { TableNames } from '../../src/projection/types.ts';
import { bootstrapAccount } from './accounts.ts';
import { startTestApp, type TestApp } from './app.ts';

/**
 * The rows read model's tables (rows, partitioned by table, and the storage of each table) made under
 * names of their own (`<name>` and `<name>_storage`), for a test applying events to them directly.
 * Under names other than the live ones, the read model treats them as a rebuild's shadow tables:
 * index changes are made in its transaction rather than by the row-indexes worker. `columns` are the
 * tables' columns (table id -> column ids) as ColumnAdded events would have left them: a write that
 * names a column its table does not have is taken for the late write of a removed column, whose cells
 * the read model takes out again.
 */
export async function rowsTables(
  pool: Pool,
  name: string,
  columns: Record<string, readonly string[]> = {},
): Promise<TableNames> {
  const names: Record<string, string> = { [ROWS]: name, [ROW_STORAGE]: `${name}_storage` };
  for (const [logical, ddl] of Object.entries(rowsProjection.tables))
    for (const statement of ddl(names[logical]!)) await pool.query(statement);
  for (const [tableId, ids] of Object.entries(columns))
    await pool.query(`INSERT INTO ${names[ROW_STORAGE]} (table_id, columns) VALUES ($1, $2)`, [
      tableId,
      Object.fromEntries(ids.map((id) => [id, 'text'])),
    ]);
  return (logical) => names[logical]!;
}

/**
 * The service's app with, of its workers, the row-indexes one only (it builds and drops indexes and
 * takes removed columns' cells out, processes/rows/), and an account's key: for tests of the rows
 * read model's storage.
 */
export async function startRowIndexesApp(): Promise<{ t: TestApp; key: string }> {
  const t = await startTestApp({
    projections: service.projections,
    routes: service.routes,
    authenticator: createAuthenticator,
    workers: [rowIndexesWorker],
  });
  return { t, key: (await bootstrapAccount(t.app)).apiKey };
}

/** The partition of the live rows read model that holds a table's rows (null before its first rows). */
export async function partitionOf(pool: Pool, tableId: string): Promise<string | null> {
  const { rows } = await pool.query(`SELECT partition FROM ${ROW_STORAGE} WHERE table_id = $1`, [tableId]);
  return rows[0]?.partition ?? null;
}
