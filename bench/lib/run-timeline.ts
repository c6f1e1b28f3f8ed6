import type { Pool } from '../../src/db/pool.ts';

/** When a run's steps were recorded, in ms after its RunCreated (the store's recorded_at). */
export interface Timeline {
  firstStart: number;
  lastResult: number;
  ended: number;
}

/**
 * Where a run's time went, read from the event store (PostgreSQL): until its first row started (the
 * queueing), until its last row's result was recorded (the workers), until its end was recorded (the
 * runs read model counting the last row, then the end worker).
 */
export async function timelineOf(pool: Pool, runId: string): Promise<Timeline> {
  const { rows } = await pool.query<{ type: string; first: Date; last: Date }>(
    `SELECT type, min(recorded_at) AS first, max(recorded_at) AS last FROM events
     WHERE stream_name = $1 GROUP BY type`,
    [`run-${runId}`],
  );
  const of = new Map(rows.map((r) => [r.type, r]));
  const created = of.get('RunCreated')?.first.getTime() ?? Number.NaN;
  const after = (at: Date | undefined) => (at ? at.getTime() - created : Number.NaN);
  return {
    // RunRowsStarted since starts are batched; RunRowStarted in runs recorded before.
    firstStart: after((of.get('RunRowsStarted') ?? of.get('RunRowStarted'))?.first),
    lastResult: after(of.get('RunRowFinished')?.last),
    ended: after(of.get('RunFinished')?.first),
  };
}

export const describeTimeline = (t: Timeline) =>
  `first row started ${Math.round(t.firstStart)} ms after the start, last result at ${Math.round(t.lastResult)} ms, run ended at ${Math.round(t.ended)} ms`;
