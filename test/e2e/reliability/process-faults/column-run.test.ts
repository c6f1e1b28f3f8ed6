import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bearer, bootstrapAccount, call } from '../../../support/accounts.ts';
import { eventually } from '../../../support/eventually.ts';
import { freshDatabase, type TestDatabase } from '../../../support/postgres.ts';
import { Services } from '../../../support/process-faults.ts';
import { insertRows } from '../../../support/rows.ts';
import { type CountingTarget, httpColumnTable, runEnded, startTarget } from '../../../support/runs.ts';
import type { ServiceProcess } from '../../../support/service-process.ts';

/*
 * Column runs across real service processes on one database: a process killed mid-run (SIGKILL, no
 * shutdown) and one started again finish the run with one result per row, and the loopback target,
 * counting requests per Idempotency-Key, sees a repeat only for rows that were in flight at the kill.
 * Two processes at once share a run's rows: each row is called once.
 */
interface Ctx {
  db: TestDatabase;
  target: CountingTarget;
  services: Services;
}

const test = suite<Ctx>('column runs: SIGKILL mid-run and two processes');

const ENV = { ALLOW_PRIVATE_NETWORK_TARGETS: 'true', OUTBOUND_RATE_PER_HOST: '100000' };
const CONCURRENCY = 8;
/** Within the starter credits (50), so that every row is funded. */
const ROWS = 45;

test.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.target = await startTarget({ delayMs: 30 });
  ctx.services = new Services({ ...ENV, DATABASE_URL: ctx.db.url });
});
test.after.each(async (ctx) => {
  await ctx.services.close();
  await ctx.target.close();
  await ctx.db.drop();
});

const service = (ctx: Ctx): Promise<ServiceProcess> => ctx.services.start();

async function seededRun(ctx: Ctx, url: string) {
  const key = (await bootstrapAccount(url)).apiKey;
  const { tableId, columns } = await httpColumnTable(url, key, ctx.target.url, CONCURRENCY);
  const rows = await insertRows(
    url,
    key,
    tableId,
    Array.from({ length: ROWS }, (_, i) => ({ n: String(i) })),
  );
  const res = await call(url, 'POST', `/api/tables/${tableId}/columns/${columns.result.id}/run`, {
    headers: bearer(key),
    body: { scope: 'all' },
  });
  assert.is(res.status, 202, JSON.stringify(res.body));
  return { key, tableId, rows, runId: res.body.id as string };
}

/** Each row of the run recorded exactly one result: one RunRowFinished per row in the log. */
async function resultsPerRow(db: TestDatabase, runId: string): Promise<Map<string, number>> {
  const { rows } = await db.pool.query<{ row_id: string; n: number }>(
    `SELECT data->>'rowId' AS row_id, count(*)::int AS n FROM events
     WHERE stream_name = $1 AND type = 'RunRowFinished' GROUP BY 1`,
    [`run-${runId}`],
  );
  return new Map(rows.map((r) => [r.row_id, r.n]));
}

test('SIGKILL mid-run: after a restart the run finishes, one result per row, repeats only for rows in flight', async (ctx) => {
  const first = await service(ctx);
  const { key, rows, runId } = await seededRun(ctx, first.url);
  // Kill it once some rows are done and others are in flight.
  await eventually('a third of the rows called', () => ctx.target.counts.size >= ROWS / 3);
  await ctx.services.kill(first);
  const calledBefore = new Map(ctx.target.counts);
  const second = await service(ctx);
  const run = await runEnded(second.url, key, runId, 120_000);
  assert.is(run.status, 'succeeded', JSON.stringify(run));
  assert.equal(run.counts, { total: ROWS, queued: 0, running: 0, succeeded: ROWS, failed: 0, skipped: 0 });
  assert.equal(run.credits, { reserved: ROWS, charged: ROWS, refunded: 0 });
  const results = await resultsPerRow(ctx.db, runId);
  assert.is(results.size, ROWS);
  for (const row of rows) assert.is(results.get(row.id), 1, `results of ${row.id}`);
  const repeated = [...ctx.target.counts].filter(([, n]) => n > 1).map(([k]) => k);
  for (const row of rows) assert.ok((ctx.target.counts.get(`${runId}:${row.id}`) ?? 0) >= 1);
  // Only rows called before the kill are called again, and at most the run's concurrency of them.
  assert.ok(repeated.length <= CONCURRENCY, `${repeated.length} repeated`);
  for (const k of repeated) assert.ok(calledBefore.has(k), `${k} repeated but not called before the kill`);
  assert.ok(calledBefore.size < ROWS, 'the kill came before the last row');
});

test('two processes on one database: each row is called once', async (ctx) => {
  const [a] = [await service(ctx), await service(ctx)];
  const { key, rows, runId } = await seededRun(ctx, a!.url);
  const run = await runEnded(a!.url, key, runId, 120_000);
  assert.is(run.status, 'succeeded', JSON.stringify(run));
  for (const row of rows) assert.is(ctx.target.counts.get(`${runId}:${row.id}`), 1, row.id);
  const results = await resultsPerRow(ctx.db, runId);
  assert.ok([...results.values()].every((n) => n === 1));
  assert.is(results.size, ROWS);
});

test.run();
