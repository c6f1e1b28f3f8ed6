import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../app/modules.ts';
import { grantCredits } from '../../commands/accounts/grant-credits.ts';
import { executorDepsFrom, executorsFrom } from '../../processes/runs/providers/index.ts';
import { runWorker } from '../../processes/runs/run-worker.ts';
import { createAuthenticator } from '../../services/accounts/authenticator.ts';
import { handleCommand } from '../../src/command.ts';
import { organizationStream } from '../../src/domain/accounts/streams.ts';
import { RUN_QUEUE, runQueueItemId } from '../../src/domain/runs/run-state.ts';
import type { WorkItem } from '../../src/work/queue.ts';
import { bearer, bootstrapAccount, call } from './accounts.ts';
import { startTestApp, type TestApp } from './app.ts';
import { eventually } from './eventually.ts';
import { insertRows, listAll } from './rows.ts';
import { type CountingTarget, httpColumnTable, startTarget } from './runs.ts';

/*
 * A run's driver (processes/runs/run-driver.ts), worked by hand through its worker: the service runs
 * no workers in these suites, so every call the target counts and every event in the run's stream is
 * the driver's.
 */
export type Ctx = { t: TestApp; key: string; target: CountingTarget };

export const CONCURRENCY = 4;
/** The lease these tests drive runs under, as a worker of this process would hold it. */
export const LEASE = { owner: 'test-driver' };

/**
 * A suite whose every test has the service (no workers), a funded account and a counting target;
 * `env`: settings of the service's own (RUN_LISTED_ROWS, say).
 */
export function drivenRunSuite(name: string, env: Record<string, string> = {}): Test<Ctx> {
  const test = suite<Ctx>(name);
  test.before.each(async (ctx) => {
    ctx.target = await startTarget({ delayMs: 5 });
    ctx.t = await startTestApp({
      projections: service.projections,
      routes: service.routes,
      authenticator: createAuthenticator,
      env: { ALLOW_PRIVATE_NETWORK_TARGETS: 'true', OUTBOUND_RATE_PER_HOST: '100000', ...env },
    });
    const account = await bootstrapAccount(ctx.t.app);
    ctx.key = account.apiKey;
    // Enough for every row of these tests (a starter balance would leave some unfunded).
    await handleCommand({
      store: ctx.t.deps.store,
      stream: organizationStream.name(account.organizationId),
      decider: grantCredits,
      command: { organizationId: account.organizationId, amount: 1000, reason: 'test' },
      metadata: {},
      now: new Date(),
    });
  });
  test.after.each(async ({ t, target }) => {
    await t.close();
    await target.close();
  });
  return test;
}

export async function startedRun({ t, key, target }: Ctx, rows: number) {
  const { tableId, columns } = await httpColumnTable(t.app, key, target.url, CONCURRENCY);
  const inserted = await insertRows(
    t.app,
    key,
    tableId,
    Array.from({ length: rows }, (_, i) => ({ n: String(i) })),
  );
  const res = await call(t.app, 'POST', `/api/tables/${tableId}/columns/${columns.result.id}/run`, {
    headers: bearer(key),
    body: { scope: 'all' },
  });
  assert.is(res.status, 202, JSON.stringify(res.body));
  assert.is(res.body.counts.skipped, 0, 'every row funded');
  const runId: string = res.body.id;
  // The run reactor's item, enqueued once the reactor has seen the start.
  const item = await eventually('the run-queue item', async () => {
    const { rows: found } = await t.db.pool.query('SELECT * FROM work_items WHERE id = $1', [
      runQueueItemId(runId),
    ]);
    return found[0];
  });
  assert.is(item.kind, RUN_QUEUE);
  // Held as a worker's claim would hold it: a driver starts rows only under its item's lease.
  await t.db.pool.query(
    `UPDATE work_items SET status = 'leased', lease_owner = $2, lease_expires_at = now() + interval '1 hour'
     WHERE id = $1`,
    [item.id, LEASE.owner],
  );
  const work: WorkItem = {
    id: item.id,
    kind: item.kind,
    organizationId: item.organization_id,
    groupKey: item.group_key,
    payload: item.payload,
    attempts: 1,
    runAt: item.run_at,
    createdAt: item.created_at,
  };
  return { tableId, columns, runId, work, rowIds: inserted.map((r: { id: string }) => r.id) };
}

/**
 * The run's item worked by a driver of this process under LEASE, as a worker would (until `signal`),
 * with the app's dependencies or `deps`.
 */
export const drive = (t: TestApp, work: WorkItem, signal = new AbortController().signal, deps = t.deps) =>
  runWorker((d) => executorsFrom(executorDepsFrom(d)))(deps).handle(work, signal, LEASE);

/** The run once every row is counted (no worker ends it here: its status stays `running`). */
export const allCounted = (ctx: Ctx, runId: string) =>
  eventually('every row counted', async () => {
    const res = await call(ctx.t.app, 'GET', `/api/runs/${runId}`, { headers: bearer(ctx.key) });
    const { counts } = res.body;
    return counts && counts.queued + counts.running === 0 ? res.body : undefined;
  });

/**
 * The table's rows once every one shows its `result` cell done: the rows projection is not the run's,
 * so the run counted whole does not mean its cells are already in the rows read model.
 */
export const allCellsDone = (ctx: Ctx, tableId: string) =>
  eventually("every row's result cell done", async () => {
    const rows = await listAll(ctx.t.app, ctx.key, tableId);
    return rows.every((r) => r.cellStatus?.result?.status === 'done') ? rows : undefined;
  });

/** The run's own events of one type, in the stream's order. */
export async function runEvents(t: TestApp, runId: string, type: string) {
  const { rows } = await t.db.pool.query(
    `SELECT data FROM events WHERE stream_name = $1 AND type = $2 ORDER BY stream_revision`,
    [`run-${runId}`, type],
  );
  return rows.map((r) => r.data);
}
