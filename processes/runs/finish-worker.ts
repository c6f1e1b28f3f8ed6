import { AUTORUN_KIND } from '../../projections/autorun/autorun.ts';
import { settleCredits } from '../../src/domain/accounts/credits.ts';
import type { RunCreatedData, RunEvent, RunFinishedData } from '../../src/domain/runs/events.ts';
import { columnRunStream, eventIdOf, RUN_FINISH, runStream } from '../../src/domain/runs/run-state.ts';
import type { WorkerFactory } from '../../src/feature.ts';
import { dueNow } from '../../src/work/groups.ts';
import { forgetRun } from './run-outbox.ts';

/** How a run ended, from its rows' outcomes. */
export function finalStatus(
  counts: { total: number; succeeded: number; failed: number; skipped: number },
  stopped: boolean,
): { status: RunFinishedData['status']; error: string | null } {
  if (stopped) return { status: 'stopped', error: null };
  if (counts.succeeded === counts.total) return { status: 'succeeded', error: null };
  if (counts.succeeded === 0) {
    return {
      status: 'failed',
      error: `none of the ${counts.total} rows succeeded (${counts.failed} failed)`,
    };
  }
  return { status: 'partially_succeeded', error: null };
}

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
    if (!run) return { status: 'dead', error: `no run ${runId}` };
    if (!done) {
      const count = (o: string) => [...outcomes.values()].filter((r) => r.outcome === o).length;
      const counts = {
        total: run.rowIds.length + run.unfundedRowIds.length,
        succeeded: count('succeeded'),
        failed: count('failed'),
        skipped: count('skipped') + run.unfundedRowIds.length,
      };
      const charged = [...outcomes.values()].reduce((sum, r) => sum + r.charged, 0);
      done = {
        runId,
        organizationId: run.organizationId,
        tableId: run.tableId,
        columnId: run.columnId,
        ...finalStatus(counts, stopped),
        charged,
        refunded: run.reserved - charged,
        at: deps.clock().toISOString(),
      };
    }
    await settleCredits(deps.store, {
      organizationId: run.organizationId,
      runId,
      charged: done.charged,
      refunded: done.refunded,
    });
    await deps.store.append(runStream.name(runId), [
      { id: eventIdOf('finished', runId), type: 'RunFinished', data: done },
    ]);
    await forgetRun(deps.pool, runId);
    const { tableId, columnId } = run;
    await deps.store.append(columnRunStream.name(tableId, columnId), [
      { id: eventIdOf('release', runId), type: 'ColumnRunReleased', data: { tableId, columnId, runId } },
    ]);
    // Rows inserted while this run held the column wait in an auto-run item put off for a while
    // (processes/autorun/worker.ts): the column is free now, so their run need not wait that out.
    if (await dueNow(deps.pool, { kind: AUTORUN_KIND, groupKey: columnId })) deps.work?.nudge(AUTORUN_KIND);
    return { status: 'done' };
  },
});
