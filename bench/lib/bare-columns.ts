import Fastify from 'fastify';
import { COLUMN_FIELDS, COLUMNS, type ColumnRow, columnFromRow } from '../../projections/columns/columns.ts';
import { LIST_COLUMNS_SQL } from '../../queries/columns/list-columns.ts';
import type { Pool } from '../../src/db/pool.ts';
import { listenOnLoopback } from './bench-app.ts';

/** The bare PATCH's plain table: a copy of the columns read model, rows and all. */
const BARE_COLUMNS = 'bench_bare_columns';

export interface BareColumns {
  url: string;
  close(): Promise<void>;
}

/**
 * The baselines of bench/columns.ts: a Fastify instance of its own, in this process, with no access
 * hook, no schemas, no logging, nothing but the database, on the API's own pool.
 *
 * - GET /bare/{tableId}/columns runs the API's SQL (LIST_COLUMNS_SQL) and maps the rows the same way.
 * - PATCH /bare/columns/{columnId} makes the change a PATCH of a label and a config key makes, as one
 *   UPDATE of a plain table holding the same rows (copied from the read model when it starts), and
 *   answers the row as the API answers a column.
 */
export async function serveBareColumns(pool: Pool): Promise<BareColumns> {
  await pool.query(`CREATE TABLE ${BARE_COLUMNS} AS SELECT * FROM ${COLUMNS}`);
  await pool.query(`ALTER TABLE ${BARE_COLUMNS} ADD PRIMARY KEY (id)`);
  const bare = Fastify();
  bare.get<{ Params: { tableId: string } }>('/bare/:tableId/columns', async (request) => {
    const { rows } = await pool.query(LIST_COLUMNS_SQL, [request.params.tableId]);
    return rows.flatMap((row: ColumnRow) => (row.id === null ? [] : [columnFromRow(row)]));
  });
  bare.patch<{ Params: { columnId: string }; Body: { label: string; config: Record<string, unknown> } }>(
    '/bare/columns/:columnId',
    async (request) => {
      const { rows } = await pool.query<ColumnRow>(
        `UPDATE ${BARE_COLUMNS} SET label = $2, config = config || $3::jsonb WHERE id = $1
         RETURNING ${COLUMN_FIELDS}`,
        [request.params.columnId, request.body.label, JSON.stringify(request.body.config)],
      );
      return columnFromRow(rows[0]!);
    },
  );
  const url = await listenOnLoopback(bare);
  return { url, close: () => bare.close() };
}
