import type { RowBatchEvent } from '../../src/domain/rows/events.ts';
import { batchOf, isRowId } from '../../src/domain/rows/ids.ts';
import {
  initialRowState,
  insertedRow,
  type RowState,
  rowBatchStream,
} from '../../src/domain/rows/row-state.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import { groupBy } from '../../src/group-by.ts';

/** Batch streams read at once: enough to keep the pool busy, not to take all of it. */
const AT_ONCE = 8;

/**
 * The rows as their insert batches left them, the state each row's own stream folds onto: a row no
 * batch of this table inserted (an unknown id, another table's row) is the not-existing state. Each
 * batch is read once, however many of its rows are named.
 */
export async function insertedRows(
  store: EventStore,
  tableId: string,
  rowIds: readonly string[],
): Promise<Map<string, RowState>> {
  const byBatch = groupBy(rowIds.filter(isRowId), (rowId) => batchOf(rowId).batchId);
  const origins = new Map<string, RowState>(rowIds.map((id) => [id, initialRowState()]));
  const batches = [...byBatch.keys()];
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batchId = batches[next++]!;
      const [event] = (await store.readStream(
        rowBatchStream.name(tableId, batchId),
      )) as unknown as RowBatchEvent[];
      if (!event) continue;
      for (const rowId of byBatch.get(batchId)!) {
        const row = event.data.rows[batchOf(rowId).index];
        if (row?.rowId === rowId) origins.set(rowId, insertedRow(tableId, row, event.data.at));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, batches.length) }, worker));
  return origins;
}
