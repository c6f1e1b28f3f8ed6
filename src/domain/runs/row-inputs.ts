import { ROWS } from '../../../projections/rows/rows.ts';
import { loadStates } from '../../command.ts';
import type { AppDeps } from '../../http/app.ts';
import { type RunState, runStream } from './run-state.ts';

/** What a row of a run needs before its call: the run (stopped?) and the row's cells (absent: deleted). */
export interface RowInputs {
  run: RunState;
  cells: Record<string, unknown> | undefined;
}

interface Wanted {
  runId: string;
  tableId: string;
  rowId: string;
  resolve: (inputs: RowInputs) => void;
  reject: (error: unknown) => void;
}

/**
 * Reads the inputs of the rows asked for in the same turn of the event loop together: one read of each
 * run's stream (from the revision kept) and one query per table for the rows' cells, side by side.
 * Only for row items enqueued before items carried their cells (src/domain/runs/queue-worker.ts); a
 * row asking after a read has started waits for the next one, so what it sees of a stop is never
 * older than its claim.
 */
export function rowInputsLoader(deps: Pick<AppDeps, 'store' | 'pool'>) {
  let waiting: Wanted[] = [];

  async function read(batch: Wanted[]): Promise<void> {
    const runIds = [...new Set(batch.map((w) => w.runId))];
    const tables = new Map<string, Set<string>>();
    for (const w of batch) tables.set(w.tableId, (tables.get(w.tableId) ?? new Set()).add(w.rowId));
    const [states, cells] = await Promise.all([
      loadStates(
        deps.store,
        runIds.map((runId) => ({ stream: runStream.name(runId), definition: runStream })),
      ),
      Promise.all(
        [...tables].map(async ([tableId, rowIds]) => {
          const { rows } = await deps.pool.query<{ id: string; cells: Record<string, unknown> }>(
            `SELECT id, cells FROM ${ROWS} WHERE table_id = $1 AND id = ANY($2)`,
            [tableId, [...rowIds]],
          );
          return rows.map((r) => [`${tableId} ${r.id}`, r.cells] as const);
        }),
      ),
    ]);
    const runOf = new Map(runIds.map((runId, i) => [runId, states[i]!.state]));
    const cellsOf = new Map(cells.flat());
    for (const w of batch)
      w.resolve({ run: runOf.get(w.runId)!, cells: cellsOf.get(`${w.tableId} ${w.rowId}`) });
  }

  return (runId: string, tableId: string, rowId: string): Promise<RowInputs> =>
    new Promise((resolve, reject) => {
      waiting.push({ runId, tableId, rowId, resolve, reject });
      if (waiting.length > 1) return;
      setImmediate(() => {
        const batch = waiting;
        waiting = [];
        read(batch).catch((error) => {
          for (const w of batch) w.reject(error);
        });
      });
    });
}
