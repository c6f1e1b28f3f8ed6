import {
  existingIndexes,
  indexChanges,
  type KeyRange,
  ROW_INDEXES_KIND,
  ROW_STORAGE,
  ROWS,
  type RowIndexesPayload,
  removedOf,
} from '../../projections/rows/storage.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import type { DataType } from '../../src/domain/columns/fields.ts';
import type { WorkerFactory } from '../../src/feature.ts';
import { quoteIdent } from '../../src/projection/shadow-tables.ts';
import { enqueue, type WorkItem } from '../../src/work/queue.ts';
import { purgeRemovedCells } from './purge-cells.ts';

interface StorageRow {
  partition: string | null;
  columns: Record<string, DataType>;
  deleted: boolean;
}

/** What a reconcile did, and the ranges of rows whose removed cells it left (they were busy). */
export interface Reconciled {
  done: string[];
  busy: KeyRange[];
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
  ranges?: readonly KeyRange[],
): Promise<Reconciled> {
  const done: string[] = [];
  const client = await pool.connect();
  try {
    // An index build over a million rows takes longer than a request may.
    await client.query('SET statement_timeout = 0');
    let storage: StorageRow | undefined;
    for (let pass = 0; pass < 10; pass++) {
      const { rows } = await client.query<StorageRow>(
        `SELECT partition, columns, deleted FROM ${ROW_STORAGE} WHERE table_id = $1`,
        [tableId],
      );
      storage = rows[0];
      if (!storage?.partition) return { done, busy: [] };
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
        return { done, busy: [] };
      }
      const steps = indexChanges(partition, storage.columns, await existingIndexes(client, partition), true);
      if (steps.length === 0) break;
      for (const step of steps) {
        await client.query(step);
        done.push(step.split('\n')[0]!);
      }
    }
    // After the indexes: a removed column's go at once, the bytes of its cells after. Checked against
    // the columns as last read (a column removed since is only kept).
    const partition = storage?.partition;
    if (!storage || !partition) return { done, busy: [] };
    const gone = removedOf(removed, storage.columns);
    if (gone.length === 0) return { done, busy: [] };
    const purged = await purgeRemovedCells(client, tableId, partition, gone, signal, ranges);
    if (purged.stopped) throw new Error('row-indexes: stopped before the removed cells were out');
    if (purged.busy.length === 0) done.push(`took the cells of ${gone.join(', ')} out of the rows`);
    return { done, busy: purged.busy };
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
    const payload = item.payload as RowIndexesPayload;
    const { tableId, removed = [] } = payload;
    let busy: KeyRange[];
    try {
      const reconciled = await reconcileRowIndexes(deps.pool, tableId, removed, signal, payload.busy);
      if (reconciled.done.length > 0)
        deps.logger.info({ tableId, done: reconciled.done }, 'rows: table storage changed');
      busy = reconciled.busy;
    } catch (error) {
      // Stopped, or nothing that only this item knows: the queue retries it (or gives it up).
      if (signal.aborted || removed.length === 0) throw error;
      // The removed columns are known only to this item: rather than let it die, a fresh one goes on.
      deps.logger.error({ err: error, tableId }, 'rows: taking removed cells out failed; tried again later');
      await again(deps, item, { tableId, removed });
      return { status: 'done' };
    }
    // Rows kept busy are not this item failing: a fresh item tries their ranges again later, so that
    // busy tries never use up the throws an item is allowed (MAX_THROWS, src/work/worker.ts).
    if (busy.length > 0) await again(deps, item, { tableId, removed, busy });
    return { status: 'done' };
  },
});

/** The longest wait before a fresh item goes on with removed cells: 5 s, doubling, at most this. */
const AGAIN_MAX_MS = 5 * 60_000;

/** A fresh item (`<id>#<n>`) going on with `payload` later, each time further apart. */
async function again(deps: ServiceDeps, item: WorkItem, payload: RowIndexesPayload): Promise<void> {
  const n = ((item.payload as RowIndexesPayload).again ?? 0) + 1;
  const delay = Math.min(AGAIN_MAX_MS, 5_000 * 2 ** (n - 1));
  await enqueue(deps.pool, [
    {
      id: `${item.id.replace(/#\d+$/, '')}#${n}`,
      kind: ROW_INDEXES_KIND,
      organizationId: item.organizationId,
      groupKey: payload.tableId,
      groupLimit: 1,
      payload: { ...payload, again: n } satisfies RowIndexesPayload,
      runAt: new Date(deps.clock().getTime() + delay),
    },
  ]);
  deps.logger.info(
    { tableId: payload.tableId, again: n, delay },
    'rows: removed cells go on in a fresh item',
  );
}
