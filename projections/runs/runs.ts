import { UNFUNDED } from '../../src/domain/runs/charge-rules.ts';
import type { RunEvent } from '../../src/domain/runs/events.ts';
import { RUN_FINISH, runFinishItemId, runRowCounts } from '../../src/domain/runs/run-state.ts';
import type { ApplyContext, Projection, RecordedOf } from '../../src/projection/types.ts';

export const RUNS = 'runs';
export const RUN_ROWS = 'run_rows';

type Event = RecordedOf<RunEvent>;

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
  enqueues: [RUN_FINISH],
  handles: [
    'RunCreated',
    'RunRowsQueued',
    'RunRowStarted',
    'RunRowsStarted',
    'RunRowFinished',
    'RunRowsLeft',
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
    await selectedRows(events, ctx);
    await applyRows(events, ctx);
    await rowsLeft(events, ctx);
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

async function created(event: Extract<Event, { type: 'RunCreated' }>, { tx, table, enqueue }: ApplyContext) {
  const d = event.data;
  const { total, funded } = runRowCounts(d);
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
      total,
      funded,
      total - funded,
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
      error_code: UNFUNDED.code,
      error_message: UNFUNDED.message,
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
  if (funded === 0) await enqueue([finishItem(d.organizationId, d.runId)]);
}

const finishItem = (organizationId: string, runId: string) => ({
  id: runFinishItemId(runId),
  kind: RUN_FINISH,
  organizationId,
  payload: { runId },
});

/**
 * The rows a run selecting as it goes (RunCreated.selection) queued: its rows from here on, as a listed
 * run's are from its start (a listed run's are there already: nothing changes). They were counted
 * `queued` at the start.
 */
async function selectedRows(events: readonly Event[], { tx, table }: ApplyContext) {
  const queued = events.flatMap((e) =>
    e.type === 'RunRowsQueued' ? e.data.rowIds.map((rowId) => [e.data.runId, rowId, e.data.at]) : [],
  );
  if (queued.length === 0) return;
  await tx.query(
    `INSERT INTO ${table(RUN_ROWS)} (run_id, row_id, status, updated_at)
     SELECT run_id, row_id, 'queued', at FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS q(run_id, row_id, at)
     ON CONFLICT DO NOTHING`,
    [0, 1, 2].map((i) => queued.map((q) => q[i])),
  );
}

/**
 * Funded rows of a selecting run that no step took (RunRowsLeft): skipped, out of `queued`; the run
 * ends once nothing is queued or running.
 */
async function rowsLeft(events: readonly Event[], { tx, table, enqueue }: ApplyContext) {
  for (const event of events) {
    if (event.type !== 'RunRowsLeft') continue;
    const { rows } = await tx.query<{ organization_id: string; done: boolean }>(
      `UPDATE ${table(RUNS)} SET queued = queued - $2, skipped = skipped + $2 WHERE id = $1
       RETURNING organization_id, (queued + running = 0 AND finished_at IS NULL) AS done`,
      [event.data.runId, event.data.count],
    );
    if (rows[0]?.done) await enqueue([finishItem(rows[0].organization_id, event.data.runId)]);
  }
}

/** A row's start or result as the statement below takes it, one array element a field. */
type RowStep = [string, string, 'start' | 'finish', ...(string | number | null)[]];

/**
 * The batch's row events applied in one statement: per row, its first result applies if the row was
 * queued or running, its first start if the row was queued and no result came before it (the order of
 * the log, `ord`); the runs' counts move by the difference, and a run whose rows are all settled is
 * answered for its end. A start is a row's, or each row's of a RunRowsStarted. Rows the run never named
 * are left out. (It was a read, an update of the rows and one of the counts: three round trips.)
 */
async function applyRows(events: readonly Event[], { tx, table, enqueue }: ApplyContext) {
  const steps = events.flatMap((e): RowStep[] => {
    if (e.type === 'RunRowsStarted' || e.type === 'RunRowStarted') {
      const rowIds = e.type === 'RunRowsStarted' ? e.data.rowIds : [e.data.rowId];
      return rowIds.map((rowId) => [
        e.data.runId,
        rowId,
        'start',
        null,
        null,
        null,
        null,
        null,
        null,
        0,
        e.data.at,
      ]);
    }
    if (e.type !== 'RunRowFinished') return [];
    const { runId, rowId, outcome, error, meta, charged, at } = e.data;
    return [
      [
        runId,
        rowId,
        'finish',
        outcome,
        error?.code ?? null,
        error?.message ?? null,
        meta?.httpStatus ?? null,
        meta?.durationMs ?? null,
        meta?.attempts ?? null,
        charged,
        at,
      ],
    ];
  });
  if (steps.length === 0) return;
  const t = table(RUN_ROWS);
  const { rows: settled } = await tx.query<{ id: string; organization_id: string; done: boolean }>(
    `WITH ev AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
         $7::integer[], $8::double precision[], $9::integer[], $10::integer[], $11::timestamptz[])
         WITH ORDINALITY AS e(run_id, row_id, kind, outcome, error_code, error_message, http_status,
           duration_ms, attempts, charged, at, ord)
     ), fin AS (
       SELECT DISTINCT ON (run_id, row_id) * FROM ev WHERE kind = 'finish' ORDER BY run_id, row_id, ord
     ), st AS (
       SELECT DISTINCT ON (run_id, row_id) * FROM ev WHERE kind = 'start' ORDER BY run_id, row_id, ord
     ), nxt AS (
       SELECT cur.run_id, cur.row_id, cur.status AS old,
         st.ord IS NOT NULL AND cur.status = 'queued' AND (fin.ord IS NULL OR st.ord < fin.ord) AS started,
         st.at AS started_at, st.ord AS started_ord,
         fin.ord IS NOT NULL AND cur.status IN ('queued', 'running') AS finished,
         fin.outcome, fin.error_code, fin.error_message, fin.http_status, fin.duration_ms, fin.attempts,
         fin.charged, fin.at AS finished_at
       FROM ${t} AS cur
       LEFT JOIN fin ON fin.run_id = cur.run_id AND fin.row_id = cur.row_id
       LEFT JOIN st ON st.run_id = cur.run_id AND st.row_id = cur.row_id
       WHERE (cur.run_id, cur.row_id) IN (SELECT run_id, row_id FROM ev)
     ), changed AS (
       SELECT * FROM nxt WHERE started OR finished
     ), rows_updated AS (
       UPDATE ${t} AS r SET
         status = CASE WHEN c.finished THEN c.outcome ELSE 'running' END,
         error_code = CASE WHEN c.finished THEN c.error_code ELSE r.error_code END,
         error_message = CASE WHEN c.finished THEN c.error_message ELSE r.error_message END,
         http_status = CASE WHEN c.finished THEN c.http_status ELSE r.http_status END,
         duration_ms = CASE WHEN c.finished THEN c.duration_ms ELSE r.duration_ms END,
         attempts = CASE WHEN c.finished THEN c.attempts ELSE r.attempts END,
         updated_at = CASE WHEN c.finished THEN c.finished_at ELSE c.started_at END
       FROM changed AS c WHERE r.run_id = c.run_id AND r.row_id = c.row_id
     ), d AS (
       SELECT run_id,
         -count(*) FILTER (WHERE old = 'queued') AS queued,
         count(*) FILTER (WHERE started AND NOT finished) - count(*) FILTER (WHERE finished AND old = 'running')
           AS running,
         count(*) FILTER (WHERE finished AND outcome = 'succeeded') AS succeeded,
         count(*) FILTER (WHERE finished AND outcome = 'failed') AS failed,
         count(*) FILTER (WHERE finished AND outcome = 'skipped') AS skipped,
         coalesce(sum(charged) FILTER (WHERE finished), 0) AS charged,
         -- The first start in the log's order, whatever the batches: a rebuild gives the same.
         (array_agg(started_at ORDER BY started_ord) FILTER (WHERE started))[1] AS started_at
       FROM changed GROUP BY run_id
     )
     UPDATE ${table(RUNS)} AS cur SET queued = cur.queued + d.queued, running = cur.running + d.running,
       succeeded = cur.succeeded + d.succeeded, failed = cur.failed + d.failed, skipped = cur.skipped + d.skipped,
       charged = CASE WHEN cur.finished_at IS NULL THEN cur.charged + d.charged ELSE cur.charged END,
       started_at = coalesce(cur.started_at, d.started_at),
       status = CASE WHEN cur.status = 'queued' AND d.started_at IS NOT NULL THEN 'running' ELSE cur.status END
     FROM d WHERE cur.id = d.run_id
     RETURNING cur.id, cur.organization_id, (cur.queued + cur.running = 0 AND cur.finished_at IS NULL) AS done`,
    Array.from({ length: 11 }, (_, i) => steps.map((step) => step[i] ?? null)),
  );
  const finished = settled.filter((run) => run.done);
  await enqueue(finished.map((run) => finishItem(run.organization_id, run.id)));
}
