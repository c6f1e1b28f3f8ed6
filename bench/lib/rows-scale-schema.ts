/**
 * Schema changes of `bench:rows-scale` (issue 32, item 2): a column deleted from the grown table (its
 * indexes dropped, then its cells taken out of every row) and created again (its two indexes built),
 * each timed from the request until the partition is what the columns say, while one client reads
 * the first page sorted by a number column and PATCHes a row, one request after the other: a change
 * that blocked the table would show as a read or a write taking as long as it.
 */
import type { Pool } from '../../src/db/pool.ts';
import { isIndexedType } from '../../src/domain/rows/keys.ts';
import { bearer, call } from '../../test/support/accounts.ts';
import { percentile } from './timing.ts';

export interface Latency {
  p50: number;
  max: number;
  count: number;
}

export interface SchemaChange {
  /** Seconds from the request until the partition was done with it. */
  seconds: number;
  reads: Latency;
  writes: Latency;
}

export interface SchemaChanges {
  deleted: SchemaChange;
  created: SchemaChange;
}

const latency = (ms: number[]): Latency => {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), max: sorted.at(-1) ?? 0, count: sorted.length };
};

/**
 * Deletes the column `key` (a text column every row may have) and creates it again, reading and
 * writing the table throughout. The rows inserted after it keep their cells under the new column.
 */
export async function schemaChanges(options: {
  url: string;
  apiKey: string;
  pool: Pool;
  tableId: string;
  key: string;
  /** Seconds at most for each change to be done. */
  waitSeconds: number;
}): Promise<SchemaChanges> {
  const { url, pool, tableId, key } = options;
  const headers = bearer(options.apiKey);
  const columnsPath = `/api/tables/${tableId}/columns`;
  const listed = await call(url, 'GET', columnsPath, { headers });
  const column = listed.body.find((c: { key: string }) => c.key === key);
  if (!column) throw new Error(`no column ${key}`);
  const { rows: stored } = await pool.query<{ partition: string }>(
    'SELECT partition FROM table_row_storage WHERE table_id = $1',
    [tableId],
  );
  const { partition } = stored[0]!;
  /**
   * Whether the row-indexes worker is done taking the column's cells out: an item naming it settled,
   * and none left to go on with it (a fresh item takes over rows that were busy).
   */
  const purged = async () => {
    const { rows } = await pool.query<{ done: boolean; open: boolean }>(
      `SELECT bool_or(status = 'done') AS done, bool_or(status IN ('pending', 'leased')) AS open
       FROM work_items WHERE kind = 'row-indexes' AND group_key = $1 AND payload->'removed' ? $2`,
      [tableId, column.id],
    );
    return rows[0]?.done === true && rows[0]?.open !== true;
  };
  const validIndexes = async () =>
    (
      await pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_index i WHERE i.indrelid = to_regclass($1) AND i.indisvalid`,
        [`"${partition}"`],
      )
    ).rows[0]!.n;
  const indexesBefore = await validIndexes();
  // Its key indexes, ascending and descending (projections/rows/storage.ts); a JSON column has none.
  const ownIndexes = isIndexedType(column.dataType) ? 2 : 0;

  const deleted = await whileChanging(
    url,
    headers,
    tableId,
    async () => {
      const res = await call(url, 'DELETE', `${columnsPath}/${column.id}`, { headers });
      if (res.status !== 204) throw new Error(`DELETE the column answered ${res.status}`);
    },
    async () => (await purged()) && (await validIndexes()) === indexesBefore - ownIndexes,
    options.waitSeconds,
  );
  const { rows: left } = await pool.query(
    `SELECT count(*)::int AS n FROM "${partition}" WHERE cells ? $1 OR cell_status ? $1`,
    [column.id],
  );
  if (left[0].n > 0) throw new Error(`${left[0].n} rows still hold cells of the deleted column`);
  const created = await whileChanging(
    url,
    headers,
    tableId,
    async () => {
      const res = await call(url, 'POST', columnsPath, {
        headers,
        body: { label: key, key, kind: 'input', dataType: column.dataType },
      });
      if (res.status !== 201) throw new Error(`POST the column answered ${res.status}`);
    },
    async () => (await validIndexes()) === indexesBefore,
    options.waitSeconds,
  );
  return { deleted, created };
}

async function whileChanging(
  url: string,
  headers: Record<string, string>,
  tableId: string,
  change: () => Promise<void>,
  done: () => Promise<boolean>,
  waitSeconds: number,
): Promise<SchemaChange> {
  const rowsPath = `/api/tables/${tableId}/rows`;
  const page = await call(url, 'GET', `${rowsPath}?limit=100`, { headers });
  const rowIds: string[] = page.body.data.map((r: { id: string }) => r.id);
  const reads: number[] = [];
  const writes: number[] = [];
  const start = performance.now();
  await change();
  const deadline = start + waitSeconds * 1000;
  for (let i = 0; ; i++) {
    let at = performance.now();
    const read = await call(url, 'GET', `${rowsPath}?limit=100&sort=-score`, { headers });
    if (read.status !== 200) throw new Error(`a read during the change answered ${read.status}`);
    reads.push(performance.now() - at);
    at = performance.now();
    const write = await call(url, 'PATCH', `${rowsPath}/${rowIds[i % rowIds.length]}`, {
      headers,
      // Not a cell any measured page sorts or filters by: the limit's table does not see the writes.
      body: { cells: { email: `p${i}@written.example` } },
    });
    if (write.status !== 200) throw new Error(`a write during the change answered ${write.status}`);
    writes.push(performance.now() - at);
    if (await done()) break;
    if (performance.now() > deadline) throw new Error(`the change was not done after ${waitSeconds} s`);
  }
  return {
    seconds: (performance.now() - start) / 1000,
    reads: latency(reads),
    writes: latency(writes),
  };
}
