import {
  createIndexSql,
  dropIndexSql,
  existingIndexes,
  ROW_INDEXES_KIND,
  ROW_STORAGE,
  ROWS,
  wantedIndexes,
} from '../../projections/rows/storage.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { DataType } from '../../src/domain/columns/fields.ts';
import type { WorkerFactory } from '../../src/feature.ts';
import { purgeDroppedCells } from './purge-cells.ts';

interface StorageRow {
  partition: string | null;
  columns: Record<string, DataType>;
  /** Removed columns whose cells may still be in the partition's rows. */
  dropped: string[];
  deleted: boolean;
}

/** What a reconcile did, and whether it left something for a later try (a busy purge). */
export interface Reconciled {
  done: string[];
  unfinished: boolean;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Brings a research table's partition of the live rows read model to what its storage row says
 * (projections/rows/storage.ts), outside any transaction, so that nothing waits for it: a missing key
 * index is built CONCURRENTLY (reads and writes of the table go on; until it is there, queries answer
 * the same, only without it), an index of a removed column (or one a failed build left invalid) is
 * dropped CONCURRENTLY, a removed column's cells are taken out of the rows (purge-cells.ts), and a
 * deleted table's partition is detached CONCURRENTLY and dropped. Looks again until a pass changes
 * nothing, so that a column added while an index was being built is not missed. Answers what it did.
 */
export async function reconcileRowIndexes(
  pool: Pool,
  tableId: string,
  signal?: AbortSignal,
): Promise<Reconciled> {
  const done: string[] = [];
  let unfinished = false;
  const client = await pool.connect();
  try {
    // An index build over a million rows takes longer than a request may.
    await client.query('SET statement_timeout = 0');
    for (let pass = 0; pass < 10; pass++) {
      const { rows } = await client.query<StorageRow>(
        `SELECT partition, columns, dropped, deleted FROM ${ROW_STORAGE} WHERE table_id = $1`,
        [tableId],
      );
      const storage = rows[0];
      if (!storage?.partition) return { done, unfinished };
      const { partition } = storage;
      if (storage.deleted) {
        const { rows: attached } = await client.query(
          `SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass($1) AND inhparent = to_regclass($2)`,
          [quote(partition), quote(ROWS)],
        );
        if (attached.length > 0)
          await client.query(`ALTER TABLE ${quote(ROWS)} DETACH PARTITION ${quote(partition)} CONCURRENTLY`);
        await client.query(`DROP TABLE IF EXISTS ${quote(partition)}`);
        await client.query(
          `UPDATE ${ROW_STORAGE} SET partition = NULL WHERE table_id = $1 AND partition = $2`,
          [tableId, partition],
        );
        done.push(`dropped ${partition}`);
        return { done, unfinished };
      }
      const wanted = wantedIndexes(partition, storage.columns);
      const names = new Set(wanted.map((i) => i.name));
      const existing = await existingIndexes(client, partition);
      const valid = new Set(existing.filter((i) => i.valid).map((i) => i.name));
      const steps = [
        ...existing.filter((i) => !i.valid || !names.has(i.name)).map((i) => dropIndexSql(i.name, true)),
        ...wanted.filter((i) => !valid.has(i.name)).map((i) => createIndexSql(partition, i, true)),
      ];
      for (const step of steps) {
        await client.query(step);
        done.push(step.split('\n')[0]!);
      }
      // The indexes first: a removed column's go at once, its cells' bytes after.
      if (storage.dropped.length > 0 && !unfinished) {
        if (await purgeDroppedCells(client, tableId, partition, storage.dropped, signal))
          done.push(`purged the cells of ${storage.dropped.join(', ')}`);
        else unfinished = true;
      } else if (steps.length === 0) return { done, unfinished };
    }
    return { done, unfinished };
  } finally {
    client.release(true);
  }
}

/** The row-indexes items the rows read model enqueues, one table at a time (processes/rows/). */
export const rowIndexesWorker: WorkerFactory = (deps) => ({
  kind: ROW_INDEXES_KIND,
  concurrency: 1,
  // A build over a million rows takes a while: the lease is renewed while it runs.
  leaseMs: 60_000,
  async handle(item, signal) {
    const { tableId } = item.payload as { tableId: string };
    const { done, unfinished } = await reconcileRowIndexes(deps.pool, tableId, signal);
    if (done.length > 0) deps.logger.info({ tableId, done }, 'rows: table storage changed');
    if (unfinished) {
      // Stopped: the item goes back to the queue unsettled, for whoever takes it next.
      if (signal.aborted) throw new Error('row-indexes: stopped before the purge had ended');
      return {
        status: 'retry',
        at: new Date(deps.clock().getTime() + 5_000),
        error: 'rows being written: purge again',
      };
    }
    return { status: 'done' };
  },
});
