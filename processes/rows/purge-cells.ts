import { holdsRemoved, type KeyRange, withoutRemoved } from '../../projections/rows/storage.ts';
import type { PoolClient } from '../../src/db/pool.ts';
import { quoteIdent } from '../../src/projection/shadow-tables.ts';

/** Rows a purge statement looks at: one short statement each, so a write of the table waits little. */
export const PURGE_RANGE_ROWS = 1000;

/** Times the ranges that held a row being written are tried again, further apart each time. */
const PURGE_TRIES = 5;
const PURGE_BACKOFF_MS = 100;

/**
 * Takes the cells and statuses of removed columns (`removed`, column ids) out of every row of a table's
 * partition, a range of PURGE_RANGE_ROWS rows by key at a time, each range one statement: reads and
 * writes of the table go on. A row being written at that moment is skipped (SKIP LOCKED: the purge
 * never waits for a row, so it can never be part of a deadlock), and the ranges that had one are tried
 * again at the end, PURGE_TRIES times at most. A row's version and times stay: what the API shows of it
 * does not change (a removed column's cells were never read). Every row that held such cells is written
 * again, so its old version's space is reclaimed by autovacuum, as after any update. With `ranges`,
 * only those are purged (the busy ones of an earlier try). Answers the ranges that stayed busy, or
 * `stopped` when `signal` stopped it.
 */
export async function purgeRemovedCells(
  client: PoolClient,
  tableId: string,
  partition: string,
  removed: readonly string[],
  signal?: AbortSignal,
  ranges?: readonly KeyRange[],
): Promise<{ stopped: boolean; busy: KeyRange[] }> {
  const p = quoteIdent(partition);
  /** Purges the rows of (after, last]: whether none was left for being busy. */
  const purge = async (after: string, last: string) => {
    // Each step bounded by the range's keys, so that no plan can read the whole partition.
    const range = 'r.table_id = $1 AND r.id > $2 AND r.id <= $3';
    const { rows } = await client.query<{ busy: number }>(
      `WITH holding AS (SELECT r.id FROM ${p} r WHERE ${range} AND ${holdsRemoved('$4::text[]')}),
       free AS (
         SELECT r.id FROM ${p} r WHERE ${range} AND r.id IN (SELECT id FROM holding) FOR UPDATE SKIP LOCKED),
       purged AS (
         UPDATE ${p} r SET ${withoutRemoved('$4::text[]')} FROM free WHERE ${range} AND r.id = free.id
         RETURNING 1)
       SELECT (SELECT count(*) FROM holding) - (SELECT count(*) FROM purged) AS busy`,
      [tableId, after, last, removed],
    );
    return Number(rows[0]!.busy) === 0;
  };
  /** Purges each range at once: those left busy. */
  const purgeEach = async (these: readonly KeyRange[]) => {
    const still: KeyRange[] = [];
    for (const [after, last] of these) if (!(await purge(after, last))) still.push([after, last]);
    return still;
  };
  let busy: KeyRange[] = [];
  if (ranges) busy = await purgeEach(ranges);
  else
    for (let after = ''; ; ) {
      if (signal?.aborted) return { stopped: true, busy };
      const { rows } = await client.query<{ last: string | null }>(
        `SELECT max(id) AS last FROM (SELECT id FROM ${p} WHERE table_id = $1 AND id > $2 ORDER BY id LIMIT $3) s`,
        [tableId, after, PURGE_RANGE_ROWS],
      );
      const last = rows[0]?.last;
      if (!last) break;
      busy.push(...(await purgeEach([[after, last]])));
      after = last;
    }
  for (let tries = 1; busy.length > 0 && tries <= PURGE_TRIES; tries++) {
    if (signal?.aborted) return { stopped: true, busy };
    await new Promise((resolve) => setTimeout(resolve, PURGE_BACKOFF_MS * tries));
    busy = await purgeEach(busy);
  }
  return { stopped: false, busy };
}
