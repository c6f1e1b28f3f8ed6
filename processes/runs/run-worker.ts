import { setMaxListeners } from 'node:events';
import type { ServiceDeps } from '../../src/deps.ts';
import { RUN_QUEUE } from '../../src/domain/runs/run-state.ts';
import type { WorkerFactory } from '../../src/feature.ts';
import { type ExecutorFor, rowCaller, tableColumns } from './row-call.ts';
import { RunDriver } from './run-driver.ts';
import { readRunLog } from './run-log.ts';
import { runRetries } from './run-retries.ts';

/**
 * Runs driven at once by one process (each with its own concurrency of calls, up to 64): a long run
 * holds one of them, so one-row auto-runs still find one free beside a few long runs.
 */
const RUNS_AT_ONCE = 16;
/**
 * How long a run stays with a process that stops renewing its lease: after a crash, the run is driven
 * again this long after (renewed every third of it while the run is driven).
 */
export const RUN_LEASE_MS = 10_000;

/**
 * A run's rows, driven by the one process that holds the run's item (the run reactor enqueues it once
 * per run): processes/runs/run-driver.ts. Driven again after a crash or a shutdown, the run goes on
 * from its stream: rows with a result are done, the rest run (those that were in their calls again,
 * with the same Idempotency-Key), and a stop recorded meanwhile skips what had not started.
 */
export const runWorker =
  (executorsOf: (deps: ServiceDeps) => ExecutorFor): WorkerFactory =>
  (deps) => {
    const executorFor = executorsOf(deps);
    return {
      kind: RUN_QUEUE,
      concurrency: RUNS_AT_ONCE,
      leaseMs: RUN_LEASE_MS,
      async handle(item, signal, lease) {
        const { runId } = item.payload as { runId: string };
        const retrying = runRetries(deps, runId, signal);
        const log = await retrying(() => readRunLog(deps.store, runId));
        const run = log.created;
        if (!run) return { status: 'dead', error: `no run ${runId}` };
        if (log.ended) return { status: 'done' };
        // Each call in flight listens to the signal (up to the run's concurrency, 64).
        setMaxListeners(2 * run.concurrency + 10, signal);
        const columns = await retrying(() => tableColumns(deps, run.tableId));
        const callRow = rowCaller(deps, executorFor, run, columns);
        await new RunDriver(deps, run, log, callRow, signal, { itemId: item.id, owner: lease.owner }).drive();
        return { status: 'done' };
      },
    };
  };
