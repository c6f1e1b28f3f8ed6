import {
  existingIndexes,
  indexChanges,
  ROW_INDEXES_KIND,
  ROW_STORAGE,
  ROWS,
  type RowIndexesPayload,
} from '../../projections/rows/storage.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { DataType } from '../../src/domain/columns/fields.ts';
import type { WorkerFactory } from '../../src/feature.ts';
import { quoteIdent } from '../../src/projection/shadow-tables.ts';
import { enqueue } from '../../src/work/queue.ts';
import { purgeRemovedCells } from './purge-cells.ts';

interface StorageRow {
  partition: string | null;
  columns: Record<string, DataType>;
  deleted: boolean;
}

/** What a reconcile did, and whether it left removed cells for a later try (their rows were busy). */
export interface Reconciled {
  done: string[];
  unfinished: boolean;
}

/**
 * Brings a research table's partition of the live rows read model to what its storage row says
 * (projections/rows/storage.ts), outside any transaction, so that nothing waits for it: a missing key
 * index is built CONCURRENTLY (reads and writes of the table go on; until it is there, queries answer
 * the same, only without it), an index of a removed column (or one a failed build left invalid) is
 * dropped CONCURRENTLY, the cells of `removed` columns are taken out of the rows (purge-cells.ts),
 * and a deleted table's partition is detached CONCURRENTLY and dropped. Looks again until a pass
 * changes nothing, so that a column added while an index was being built is not missed. Answers what
 * it did.
 */
export async function reconcileRowIndexes(
  pool: Pool,
  tableId: string,
  removed: readonly string[] = [],
  signal?: AbortSignal,
): Promise<Reconciled> {
  const done: string[] = [];
  const client = await pool.connect();
  try {
    // An index build over a million rows takes longer than a request may.
    await client.query('SET statement_timeout = 0');
    for (let pass = 0; pass < 10; pass++) {
      const { rows } = await client.query<StorageRow>(
        `SELECT partition, columns, deleted FROM ${ROW_STORAGE} WHERE table_id = $1`,
        [tableId],
      );
      const storage = rows[0];
      if (!storage?.partition) return { done, unfinished: false };
      const { partition } = storage;
      if (storage.deleted) {
        const { rows: attached } = await client.query(
          `SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass($1) AND inhparent = to_regclass($2)`,
          [quoteIdent(partition), quoteIdent(ROWS)],
        );
        if (attached.length > 0)
          await client.query(
            `ALTER TABLE ${quoteIdent(ROWS)} DETACH PARTITION ${quoteIdent(partition)} CONCURRENTLY`,
          );
        await client.query(`DROP TABLE IF EXISTS ${quoteIdent(partition)}`);
        await client.query(
          `UPDATE ${ROW_STORAGE} SET partition = NULL WHERE table_id = $1 AND partition = $2`,
          [tableId, partition],
        );
        done.push(`dropped ${partition}`);
        return { done, unfinished: false };
      }
      const steps = indexChanges(partition, storage.columns, await existingIndexes(client, partition), true);
      if (steps.length === 0) break;
      for (const step of steps) {
        await client.query(step);
        done.push(step.split('\n')[0]!);
      }
    }
    // After the indexes: a removed column's go at once, the bytes of its cells after.
    if (removed.length === 0) return { done, unfinished: false };
    const { rows } = await client.query<{ partition: string | null }>(
      `SELECT partition FROM ${ROW_STORAGE} WHERE table_id = $1 AND NOT deleted`,
      [tableId],
    );
    const partition = rows[0]?.partition;
    if (!partition) return { done, unfinished: false };
    if (!(await purgeRemovedCells(client, tableId, partition, removed, signal)))
      return { done, unfinished: true };
    done.push(`took the cells of ${removed.join(', ')} out of the rows`);
    return { done, unfinished: false };
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
    const { tableId, removed } = item.payload as RowIndexesPayload;
    const { done, unfinished } = await reconcileRowIndexes(deps.pool, tableId, removed, signal);
    if (done.length > 0) deps.logger.info({ tableId, done }, 'rows: table storage changed');
    if (unfinished) {
      // Stopped: the item goes back to the queue unsettled, for whoever takes it next.
      if (signal.aborted) throw new Error('row-indexes: stopped before the removed cells were out');
      // Rows kept busy are not this item failing: a fresh item tries again later, so that busy tries
      // never use up the throws an item is allowed (MAX_THROWS, src/work/worker.ts).
      const again = (item.payload as RowIndexesPayload).again ?? 0;
      await enqueue(deps.pool, [
        {
          id: `${item.id.replace(/#\d+$/, '')}#${again + 1}`,
          kind: ROW_INDEXES_KIND,
          organizationId: item.organizationId,
          groupKey: tableId,
          groupLimit: 1,
          payload: { tableId, removed, again: again + 1 } satisfies RowIndexesPayload,
          runAt: new Date(deps.clock().getTime() + 5_000),
        },
      ]);
      deps.logger.info(
        { tableId, again: again + 1 },
        'rows: removed cells left in busy rows, tried again in 5 s',
      );
    }
    return { status: 'done' };
  },
});
