import type { ChangedStatus } from '../../src/domain/rows/events.ts';
import { rowStream } from '../../src/domain/rows/row-state.ts';
import { VALUE_NOT_RECORDED } from '../../src/domain/runs/row-records.ts';
import { eventIdOf } from '../../src/domain/runs/run-state.ts';
import type { EventStore } from '../../src/event-store/port.ts';

/** Rows whose cells are looked up at once (each row's stream is read whole). */
const LOOKUP_CHUNK = 500;

/** A row's cell found with this run's result in the log: whether it was its value's refusal instead. */
export interface LoggedCell {
  refused: boolean;
}

/**
 * Of these rows, those whose cell has this run's result in the log already (its `cell-finished`
 * event): a driver taking a run over sends only the rest. A chunk of rows at a time.
 */
export async function cellsLogged(
  store: Pick<EventStore, 'readStreams'>,
  run: { runId: string; tableId: string; columnId: string },
  rowIds: readonly string[],
): Promise<Map<string, LoggedCell>> {
  const found = new Map<string, LoggedCell>();
  const streamOf = (rowId: string) => rowStream.name(run.tableId, rowId);
  for (let first = 0; first < rowIds.length; first += LOOKUP_CHUNK) {
    const chunk = rowIds.slice(first, first + LOOKUP_CHUNK);
    const streams = await store.readStreams(chunk.map((rowId) => ({ stream: streamOf(rowId) })));
    for (const rowId of chunk) {
      const id = eventIdOf('cell-finished', run.runId, rowId);
      const cell = streams.get(streamOf(rowId))?.find((e) => e.id === id);
      if (!cell) continue;
      const status = (cell.data as { statuses?: Record<string, ChangedStatus> }).statuses?.[run.columnId];
      const error = typeof status === 'object' ? status.error : undefined;
      found.set(rowId, { refused: error?.startsWith(`${VALUE_NOT_RECORDED.code}:`) ?? false });
    }
  }
  return found;
}
