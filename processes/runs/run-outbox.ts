import type { Pool } from '../../src/db/pool.ts';
import { storableText } from '../../src/db/storable-text.ts';
import type { RowResult } from './row-call.ts';

/**
 * Where a run's row results are durable before their events are appended (migration 0026), and the
 * stop flag its driver reads with every store of them. See processes/runs/run-driver.ts.
 */
interface Db {
  query: Pool['query'];
}

/** The run a driver stores results for, and the lease it drives it under (its work item, its owner). */
export interface DrivenRun {
  runId: string;
  itemId: string;
  owner: string;
}

/**
 * Stores results (none: only looks), and answers whether the run was asked to stop and whether the
 * driver still holds the run's lease: read in the same statement, so rows started after an answer of
 * "not stopped, held" started before any stop's answer and while no other process drove the run.
 */
export async function storeResults(
  db: Db,
  run: DrivenRun,
  results: readonly RowResult[],
): Promise<{ stopped: boolean; held: boolean }> {
  const { rows } = await db.query<{ stopped: boolean; held: boolean }>(
    `WITH stored AS (
       INSERT INTO run_row_results (run_id, row_id, result)
       SELECT $1, r.row_id, r.result FROM unnest($2::text[], $3::text[]) AS r(row_id, result)
       ON CONFLICT (run_id, row_id) DO NOTHING
     )
     SELECT EXISTS (SELECT 1 FROM run_stops WHERE run_id = $1) AS stopped,
       EXISTS (SELECT 1 FROM work_items WHERE id = $4 AND lease_owner = $5 AND status = 'leased') AS held`,
    [
      run.runId,
      results.map((r) => r.finished.rowId),
      results.map((r) => JSON.stringify({ finished: r.finished, value: r.value })),
      run.itemId,
      run.owner,
    ],
  );
  return rows[0]!;
}

/**
 * The results stored and not yet in the log (a driver before this one died first). An error's text is
 * made storable: a version before this one stored it as its provider said it, and the run's stream
 * would refuse it for ever.
 */
export async function storedResults(db: Db, runId: string): Promise<RowResult[]> {
  const { rows } = await db.query<{ result: string }>(
    'SELECT result FROM run_row_results WHERE run_id = $1 ORDER BY created_at, row_id',
    [runId],
  );
  return rows.map((r) => {
    const result = JSON.parse(r.result) as RowResult;
    const { error } = result.finished;
    return error
      ? {
          ...result,
          finished: { ...result.finished, error: { ...error, message: storableText(error.message) } },
        }
      : result;
  });
}

/** Results whose events are in the log now. */
export async function dropResults(db: Db, runId: string, rowIds: readonly string[]): Promise<void> {
  if (rowIds.length === 0) return;
  await db.query('DELETE FROM run_row_results WHERE run_id = $1 AND row_id = ANY($2)', [runId, rowIds]);
}

/** The stop, where drivers look for it (after its event: a driver that sees it finds the event in the log). */
export async function flagStop(db: Db, runId: string): Promise<void> {
  await db.query('INSERT INTO run_stops (run_id) VALUES ($1) ON CONFLICT (run_id) DO NOTHING', [runId]);
}

/** A run that has ended leaves nothing here. */
export async function forgetRun(db: Db, runId: string): Promise<void> {
  await db.query('DELETE FROM run_row_results WHERE run_id = $1', [runId]);
  await db.query('DELETE FROM run_stops WHERE run_id = $1', [runId]);
}
