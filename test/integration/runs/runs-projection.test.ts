import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RUN_ROWS, RUNS, runsProjection } from '../../../projections/runs/runs.ts';
import { runFinishItemId } from '../../../src/domain/runs/run-state.ts';
import { applyContext } from '../../../src/projection/apply-context.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';

/*
 * The runs read model applies a batch of row events in one statement: per row, its first result if
 * the row was queued or running, its first start if it was queued and no result came before it. A
 * start repeated after a result (a row worked again after a crash), a result recorded twice, a row
 * the run never named change nothing. The same events in one batch or in several give the same tables
 * (a rebuild reads the log in other batches than the live runner did).
 */
const test = suite<{ db: TestDatabase }>('runs read model: rows started and finished');

const SETS = ['live', 'whole'] as const;
const tableOf = (set: string) => (logical: string) => `${set}_${logical}`;

test.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
  for (const set of SETS)
    for (const [logical, ddl] of Object.entries(runsProjection.tables))
      for (const statement of ddl(tableOf(set)(logical))) await ctx.db.pool.query(statement);
});
test.after.each(async (ctx) => ctx.db.drop());

const at = (n: number) => `2026-01-02T03:04:${String(n).padStart(2, '0')}.000Z`;
let position = 0n;
const recorded = (type: string, data: object) => ({
  id: randomUUID(),
  type,
  data: { runId: 'run1', ...data },
  revision: 0n,
  stream: 'run-run1',
  position: { commit: ++position, prepare: position },
  metadata: {},
  recordedAt: new Date(),
});
const created = recorded('RunCreated', {
  organizationId: 'org1',
  tableId: 't1',
  columnId: 'c1',
  column: { id: 'c1', key: 'c', dataType: 'json', config: {} },
  trigger: 'manual',
  rowIds: ['r1', 'r2', 'r3'],
  unfundedRowIds: ['u1'],
  creditsPerRow: 1,
  reserved: 3,
  concurrency: 2,
  at: at(0),
});
const started = (rowIds: string[], n: number) =>
  recorded('RunRowsStarted', { tableId: 't1', columnId: 'c1', rowIds, at: at(n) });
const finished = (rowId: string, outcome: string, n: number, extra: object = {}) =>
  recorded('RunRowFinished', {
    rowId,
    outcome,
    error: null,
    meta: { durationMs: 5, attempts: 1, httpStatus: 200 },
    charged: outcome === 'skipped' ? 0 : 1,
    at: at(n),
    ...extra,
  });

const batches = [
  [created],
  // r1 starts (old and new form) and ends; r2 starts; its start again after r1's result does nothing.
  [
    started(['r1', 'r2'], 1),
    finished('r1', 'succeeded', 2),
    recorded('RunRowStarted', { rowId: 'r1', at: at(3) }),
  ],
  [
    finished('r2', 'failed', 4, {
      error: { code: 'http_error', message: 'HTTP 500' },
      meta: { durationMs: 7, attempts: 3, httpStatus: 500 },
    }),
    finished('r2', 'succeeded', 5),
    finished('r3', 'skipped', 6, { error: { code: 'run_stopped', message: 'stopped' }, meta: null }),
    started(['r3', 'zz'], 7),
  ],
];

async function apply(db: TestDatabase, set: string, events: object[]) {
  const tx = await db.pool.connect();
  try {
    await tx.query('BEGIN');
    // biome-ignore lint/suspicious/noExplicitAny: hand-made events as the log would hand them over
    await runsProjection.apply(events as any, applyContext(tx, tableOf(set)));
    await tx.query('COMMIT');
  } finally {
    tx.release();
  }
}

const tablesOf = async (db: TestDatabase, set: string) => ({
  runs: (await db.pool.query(`SELECT * FROM ${set}_${RUNS}`)).rows,
  rows: (await db.pool.query(`SELECT * FROM ${set}_${RUN_ROWS} ORDER BY row_id`)).rows,
});

test('starts and results, repeated and out of order, counted once; batches do not matter', async ({ db }) => {
  await apply(db, 'live', batches[0]!);
  await apply(db, 'live', batches[1]!);
  const [midway] = (await tablesOf(db, 'live')).runs;
  assert.equal(
    [midway.status, midway.queued, midway.running, midway.succeeded, midway.charged, midway.started_at],
    ['running', 1, 1, 1, 1, new Date(at(1))],
  );
  await apply(db, 'live', batches[2]!);
  const live = await tablesOf(db, 'live');
  const [run] = live.runs;
  assert.equal(
    [run.total, run.queued, run.running, run.succeeded, run.failed, run.skipped, run.charged],
    [4, 0, 0, 1, 1, 2, 2],
  );
  assert.equal(
    live.rows.map((r) => [r.row_id, r.status, r.error_code, r.http_status, r.attempts, r.updated_at]),
    [
      ['r1', 'succeeded', null, 200, 1, new Date(at(2))],
      ['r2', 'failed', 'http_error', 500, 3, new Date(at(4))],
      ['r3', 'skipped', 'run_stopped', null, null, new Date(at(6))],
      ['u1', 'skipped', 'insufficient_credits', null, null, new Date(at(0))],
    ],
  );
  const { rows: items } = await db.pool.query('SELECT id FROM work_items WHERE id = $1', [
    runFinishItemId('run1'),
  ]);
  assert.is(items.length, 1, "the run's end enqueued once every row is settled");
  await apply(db, 'whole', batches.flat());
  assert.equal(await tablesOf(db, 'whole'), live);
});

test.run();
