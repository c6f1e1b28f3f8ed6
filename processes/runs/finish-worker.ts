import { AUTORUN_KIND } from '../../projections/autorun/autorun.ts';
import { RUNS } from '../../projections/runs/runs.ts';
import { releaseRunColumn } from '../../services/runs/claims.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { organizationStream } from '../../src/domain/accounts/streams.ts';
import type { RunCreatedData, RunEvent, RunFinishedData } from '../../src/domain/runs/events.ts';
import { RUN_FINISH, runStream } from '../../src/domain/runs/run-state.ts';
import { decideFinish, type RunEnding, type RunTally } from '../../src/domain/runs/workflow.ts';
import type { WorkerFactory } from '../../src/feature.ts';
import { dueNow } from '../../src/work/groups.ts';
import { forgetRun } from './run-outbox.ts';

/**
 * A run's end, once every row has its result (the runs read model enqueues it): the run's rows cost
 * what their results say, that is charged and the rest of the reservation refunded, the run's end is
 * recorded (its stored results and stop flag, if any, forgotten) and the column released. Each step's
 * event id comes from the run, so an end worked twice (its holder died) changes nothing the second time.
 */
export const runFinishWorker: WorkerFactory = (deps) => ({
  kind: RUN_FINISH,
  concurrency: 4,
  async handle(item) {
    const { runId } = item.payload as { runId: string };
    const [first] = await deps.store.readStream(runStream.name(runId), { limit: 1 });
    const created = first?.type === 'RunCreated' ? (first.data as RunCreatedData) : undefined;
    const ended = created?.selection ? await selectedRunEnd(deps, created) : await listedRunEnd(deps, runId);
    if (!ended) return { status: 'dead', error: `no run ${runId}` };
    const { run } = ended;
    const { tableId, columnId } = run;
    const end = decideFinish(run, ended, deps.clock());
    // One step after another, each with its ids: an end worked again lands what it did not reach.
    if (end.settlement.length > 0)
      await deps.store.append(organizationStream.name(run.organizationId), end.settlement);
    await deps.store.append(runStream.name(runId), end.finished);
    await forgetRun(deps.pool, runId);
    await releaseRunColumn(deps, { tableId, columnId, runId });
    // Rows inserted while this run held the column wait in an auto-run item put off for a while
    // (processes/autorun/worker.ts): the column is free now, so their run need not wait that out.
    if (await dueNow(deps.pool, { kind: AUTORUN_KIND, groupKey: columnId })) deps.work?.nudge(AUTORUN_KIND);
    return { status: 'done' };
  },
});

/**
 * A listed run's end: its rows' results read from its stream (at most RUN_LISTED_ROWS of them), each
 * row once. Undefined when the run has no start.
 */
async function listedRunEnd(
  deps: Pick<ServiceDeps, 'store' | 'clock'>,
  runId: string,
): Promise<({ run: RunCreatedData } & RunEnding) | undefined> {
  const events = (await deps.store.readStream(runStream.name(runId))) as unknown as RunEvent[];
  let run: RunCreatedData | undefined;
  let stopped = false;
  let done: RunFinishedData | undefined;
  const outcomes = new Map<string, { outcome: string; charged: number }>();
  for (const event of events) {
    if (event.type === 'RunCreated') run = event.data;
    else if (event.type === 'RunStopRequested') stopped = true;
    else if (event.type === 'RunFinished') done = event.data;
    else if (event.type === 'RunRowFinished') outcomes.set(event.data.rowId, event.data);
  }
  if (!run) return undefined;
  if (done) return { run, done };
  const count = (o: string) => [...outcomes.values()].filter((r) => r.outcome === o).length;
  const tally: RunTally = {
    total: run.rowIds.length + run.unfundedRowIds.length,
    succeeded: count('succeeded'),
    failed: count('failed'),
    skipped: count('skipped') + run.unfundedRowIds.length,
    charged: [...outcomes.values()].reduce((sum, r) => sum + r.charged, 0),
    stopped,
  };
  return { run, tally };
}

/**
 * A run selecting its rows as it goes (up to a million of them): its end from the runs read model,
 * which counted every row's result and stop before it asked for this end (the end is enqueued in the
 * transaction that counted the last row), rather than from a stream of a million results read into
 * memory. An end recorded already (its holder died after) is the last event of the run's stream.
 */
async function selectedRunEnd(
  deps: Pick<ServiceDeps, 'store' | 'pool' | 'clock'>,
  run: RunCreatedData,
): Promise<{ run: RunCreatedData } & RunEnding> {
  const stream = runStream.name(run.runId);
  const last = (await deps.store.readLastEvents([stream])).get(stream);
  if (last?.type === 'RunFinished') return { run, done: last.data as RunFinishedData };
  const { rows } = await deps.pool.query<{
    total: number;
    succeeded: number;
    failed: number;
    skipped: number;
    charged: number;
    stopping: boolean;
  }>(
    `SELECT total, succeeded, failed, skipped, charged, stopping_at IS NOT NULL AS stopping FROM ${RUNS} WHERE id = $1`,
    [run.runId],
  );
  const { stopping, ...counts } = rows[0]!;
  return { run, tally: { ...counts, stopped: stopping } };
}
