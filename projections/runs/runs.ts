import type { RunEvent } from '../../src/domain/runs/events.ts';
import { RUN_FINISH, runFinishItemId } from '../../src/domain/runs/run-state.ts';
import type { ApplyContext, Projection, RecordedOf } from '../../src/projection/types.ts';
import { enqueue } from '../../src/work/queue.ts';

export const RUNS = 'runs';
export const RUN_ROWS = 'run_rows';

type Event = RecordedOf<RunEvent>;
/** What the fold of a run's rows reads of their events. */
type RowEvent =
  | { type: 'RunRowStarted'; data: { runId: string; rowId: string; at: string } }
  | Pick<Extract<Event, { type: 'RunRowFinished' }>, 'type' | 'data'>;
type RowStatus = 'queued' | 'running' | 'succeeded' | 'failed' | 'skipped';

interface RunRow {
  run_id: string;
  row_id: string;
  status: RowStatus;
  error_code: string | null;
  error_message: string | null;
  http_status: number | null;
  duration_ms: number | null;
  attempts: number | null;
  updated_at: string;
}

interface Counts {
  queued: number;
  running: number;
  succeeded: number;
  failed: number;
  skipped: number;
  charged: number;
}

const zero = (): Counts => ({ queued: 0, running: 0, succeeded: 0, failed: 0, skipped: 0, charged: 0 });

/**
 * Runs and their rows as `GET /api/runs/...` shows them. Counts move with each row's events: a row
 * is queued, then running (RunRowsStarted, or RunRowStarted in older logs), then succeeded, failed or
 * skipped. A row's result comes once (its id is deterministic); a row may start twice (worked again
 * after a crash, in another batch of starts): only a queued row starts. When every row of a run is settled, the run's end is enqueued here, in the
 * transaction that counted the last row: this is the one place that knows, without a race, that the
 * last row is done. (Its id is the run's: a rebuild enqueues nothing new while the item is kept.)
 */
export const runsProjection: Projection<RunEvent> = {
  name: 'runs',
  version: 1,
  handles: [
    'RunCreated',
    'RunRowStarted',
    'RunRowsStarted',
    'RunRowFinished',
    'RunStopRequested',
    'RunFinished',
  ],
  tables: {
    [RUNS]: (t) => [
      `CREATE TABLE ${t} (
        id text PRIMARY KEY,
        organization_id text NOT NULL,
        table_id text NOT NULL,
        column_id text NOT NULL,
        trigger text NOT NULL,
        status text NOT NULL,
        total integer NOT NULL,
        queued integer NOT NULL,
        running integer NOT NULL DEFAULT 0,
        succeeded integer NOT NULL DEFAULT 0,
        failed integer NOT NULL DEFAULT 0,
        skipped integer NOT NULL DEFAULT 0,
        reserved integer NOT NULL,
        charged integer NOT NULL DEFAULT 0,
        refunded integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        started_at timestamptz,
        stopping_at timestamptz,
        finished_at timestamptz,
        error text
      )`,
      `CREATE INDEX ${t}_by_table ON ${t} (table_id, created_at DESC, id DESC)`,
      `CREATE INDEX ${t}_active ON ${t} (column_id) WHERE finished_at IS NULL`,
    ],
    [RUN_ROWS]: (t) => [
      `CREATE TABLE ${t} (
        run_id text NOT NULL,
        row_id text COLLATE "C" NOT NULL,
        status text NOT NULL,
        error_code text,
        error_message text,
        http_status integer,
        duration_ms double precision,
        attempts integer,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (run_id, row_id)
      )`,
    ],
  },
  async apply(events, ctx) {
    const runs = ctx.table(RUNS);
    for (const event of events) {
      if (event.type === 'RunCreated') await created(event, ctx);
    }
    await applyRows(events, ctx);
    for (const event of events) {
      if (event.type === 'RunStopRequested') {
        await ctx.tx.query(
          `UPDATE ${runs} SET status = 'stopping', stopping_at = coalesce(stopping_at, $2)
           WHERE id = $1 AND finished_at IS NULL`,
          [event.data.runId, event.data.at],
        );
      } else if (event.type === 'RunFinished') {
        const { runId, status, charged, refunded, error, at } = event.data;
        await ctx.tx.query(
          `UPDATE ${runs} SET status = $2, charged = $3, refunded = $4, error = $5, finished_at = $6,
             started_at = coalesce(started_at, $6)
           WHERE id = $1`,
          [runId, status, charged, refunded, error, at],
        );
      }
    }
  },
};

async function created(event: Extract<Event, { type: 'RunCreated' }>, { tx, table }: ApplyContext) {
  const d = event.data;
  const inserted = await tx.query(
    `INSERT INTO ${table(RUNS)} (id, organization_id, table_id, column_id, trigger, status, total, queued,
       skipped, reserved, created_at)
     VALUES ($1, $2, $3, $4, $5, 'queued', $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING`,
    [
      d.runId,
      d.organizationId,
      d.tableId,
      d.columnId,
      d.trigger,
      d.rowIds.length + d.unfundedRowIds.length,
      d.rowIds.length,
      d.unfundedRowIds.length,
      d.reserved,
      d.at,
    ],
  );
  if (inserted.rowCount === 0) return;
  const rows = [
    ...d.rowIds.map((row_id) => ({ row_id, status: 'queued' })),
    ...d.unfundedRowIds.map((row_id) => ({
      row_id,
      status: 'skipped',
      error_code: 'insufficient_credits',
      error_message: 'the reservation did not cover this row',
    })),
  ];
  await tx.query(
    `INSERT INTO ${table(RUN_ROWS)} (run_id, row_id, status, error_code, error_message, updated_at)
     SELECT $1, row_id, status, error_code, error_message, $2
     FROM json_to_recordset($3::json) AS r(row_id text, status text, error_code text, error_message text)
     ON CONFLICT DO NOTHING`,
    [d.runId, d.at, JSON.stringify(rows)],
  );
  // A run with nothing to run ends at once.
  if (d.rowIds.length === 0) await enqueueFinish(tx, d.organizationId, d.runId);
}

const enqueueFinish = (tx: ApplyContext['tx'], organizationId: string, runId: string) =>
  enqueue(tx, [{ id: runFinishItemId(runId), kind: RUN_FINISH, organizationId, payload: { runId } }]);

/** The batch's row events folded per row onto the stored rows, then the runs' counts moved by the difference. */
async function applyRows(events: readonly Event[], { tx, table }: ApplyContext) {
  // A batch of starts is its rows' starts, one after the other (the fold below is per row anyway).
  const rowEvents = events.flatMap((e): RowEvent[] => {
    if (e.type === 'RunRowsStarted') {
      const { runId, rowIds, at } = e.data;
      return rowIds.map((rowId) => ({ type: 'RunRowStarted', data: { runId, rowId, at } }));
    }
    return e.type === 'RunRowStarted' || e.type === 'RunRowFinished' ? [e] : [];
  });
  if (rowEvents.length === 0) return;
  const t = table(RUN_ROWS);
  const keys = [...new Set(rowEvents.map((e) => `${e.data.runId} ${e.data.rowId}`))];
  const { rows } = await tx.query<RunRow>(
    `SELECT run_id, row_id, status, error_code, error_message, http_status, duration_ms, attempts, updated_at
     FROM ${t} WHERE (run_id, row_id) IN (SELECT * FROM unnest($1::text[], $2::text[])) FOR UPDATE`,
    [keys.map((k) => k.split(' ')[0]), keys.map((k) => k.split(' ')[1])],
  );
  const stored = new Map(rows.map((r) => [`${r.run_id} ${r.row_id}`, r]));
  const changed = new Map<string, RunRow>();
  const deltas = new Map<string, Counts>();
  const firstStart = new Map<string, string>();
  for (const event of rowEvents) {
    const key = `${event.data.runId} ${event.data.rowId}`;
    const row = changed.get(key) ?? stored.get(key);
    if (!row) continue; // a row the run never named
    const delta = deltas.get(event.data.runId) ?? zero();
    deltas.set(event.data.runId, delta);
    if (event.type === 'RunRowStarted') {
      if (row.status !== 'queued') continue;
      delta.queued--;
      delta.running++;
      if (!firstStart.has(event.data.runId)) firstStart.set(event.data.runId, event.data.at);
      changed.set(key, { ...row, status: 'running', updated_at: event.data.at });
    } else {
      if (row.status !== 'queued' && row.status !== 'running') continue;
      delta[row.status]--;
      const { outcome, error, meta, charged, at } = event.data;
      delta[outcome]++;
      delta.charged += charged;
      changed.set(key, {
        ...row,
        status: outcome,
        error_code: error?.code ?? null,
        error_message: error?.message ?? null,
        http_status: meta?.httpStatus ?? null,
        duration_ms: meta?.durationMs ?? null,
        attempts: meta?.attempts ?? null,
        updated_at: at,
      });
    }
  }
  if (changed.size === 0) return;
  // Arrays, not a JSON recordset: the planner then knows the rows' number and updates each by its key
  // (from a recordset it guessed 100 rows and scanned the run's rows: 0.9 ms a batch of 3,000).
  const rowsChanged = [...changed.values()];
  const column = <K extends keyof RunRow>(key: K) => rowsChanged.map((r) => r[key]);
  await tx.query(
    `UPDATE ${t} AS cur SET status = r.status, error_code = r.error_code, error_message = r.error_message,
       http_status = r.http_status, duration_ms = r.duration_ms, attempts = r.attempts, updated_at = r.updated_at
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::integer[],
       $7::double precision[], $8::integer[], $9::timestamptz[])
       AS r(run_id, row_id, status, error_code, error_message, http_status, duration_ms, attempts, updated_at)
     WHERE cur.run_id = r.run_id AND cur.row_id = r.row_id`,
    [
      column('run_id'),
      column('row_id'),
      column('status'),
      column('error_code'),
      column('error_message'),
      column('http_status'),
      column('duration_ms'),
      column('attempts'),
      column('updated_at'),
    ],
  );
  const { rows: settled } = await tx.query<{ id: string; organization_id: string; done: boolean }>(
    `UPDATE ${table(RUNS)} AS cur SET queued = cur.queued + d.queued, running = cur.running + d.running,
       succeeded = cur.succeeded + d.succeeded, failed = cur.failed + d.failed, skipped = cur.skipped + d.skipped,
       charged = CASE WHEN cur.finished_at IS NULL THEN cur.charged + d.charged ELSE cur.charged END,
       started_at = coalesce(cur.started_at, d.started_at),
       status = CASE WHEN cur.status = 'queued' AND d.started_at IS NOT NULL THEN 'running' ELSE cur.status END
     FROM json_to_recordset($1::json) AS d(id text, queued integer, running integer, succeeded integer,
       failed integer, skipped integer, charged integer, started_at timestamptz)
     WHERE cur.id = d.id
     RETURNING cur.id, cur.organization_id, (cur.queued + cur.running = 0 AND cur.finished_at IS NULL) AS done`,
    [JSON.stringify([...deltas].map(([id, d]) => ({ id, ...d, started_at: firstStart.get(id) ?? null })))],
  );
  for (const run of settled) if (run.done) await enqueueFinish(tx, run.organization_id, run.id);
}
