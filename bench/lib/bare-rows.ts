import Fastify from 'fastify';
import { ROW_FIELDS, ROWS, type RowRecord, storedFromRow } from '../../projections/rows/rows.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { RowColumn } from '../../src/domain/rows/cells.ts';
import { rowView } from '../../src/domain/rows/view.ts';
import { listenOnLoopback } from './bench-app.ts';
import { handWrittenCondition, handWrittenList } from './rows-workload.ts';

export interface BareRows {
  url: string;
  close(): Promise<void>;
}

/**
 * The baselines of bench/rows.ts over the rows of `tableId`: a Fastify instance of its own, in this
 * process, running the hand-written SQL of rows-workload.ts on the API's own pool.
 *
 * - GET /bare/list: the list's filter and sort, 100 a page, rows mapped by the API's own function.
 * - POST /bare/count: the count(*) of the rows the estimate's condition selects, as `{ eligible }`.
 */
export async function serveBareRows(
  pool: Pool,
  tableId: string,
  columns: readonly RowColumn[],
): Promise<BareRows> {
  const ids = new Map(columns.map((c) => [c.key, c.id]));
  /** The statement's parameters, the table's id first; `id(key)` adds a column's id and names it. */
  const parameters = () => {
    const values: unknown[] = [tableId];
    const id = (key: string) => {
      values.push(ids.get(key));
      return `$${values.length}`;
    };
    return { values, id };
  };
  const bare = Fastify();
  bare.get('/bare/list', async () => {
    const { values, id } = parameters();
    const { where, order } = handWrittenList(id);
    const { rows } = await pool.query<RowRecord>(
      `SELECT ${ROW_FIELDS} FROM ${ROWS} r WHERE r.table_id = $1 AND ${where} ORDER BY ${order} LIMIT 101`,
      values,
    );
    return { data: rows.slice(0, 100).map((r) => rowView(columns, storedFromRow(r))) };
  });
  bare.post('/bare/count', async () => {
    const { values, id } = parameters();
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM ${ROWS} r WHERE r.table_id = $1 AND ${handWrittenCondition(id)}`,
      values,
    );
    return { eligible: rows[0].n };
  });
  const url = await listenOnLoopback(bare);
  return { url, close: () => bare.close() };
}
