import type { Logger } from 'pino';
import type { Pool } from '../db/pool.ts';
import { lastEnqueueOf } from './queue.ts';
import { processOwner, Worker, type WorkerSpec } from './worker.ts';

/**
 * How long after an enqueue a general nudge still wakes its kind: the enqueue is noted before its
 * transaction commits, and other projections' commits (and nudges) can come in between; the commit
 * of the enqueue itself comes well within this.
 */
const NUDGE_WINDOW_MS = 2_000;

/**
 * The service's workers, one per kind of work, sharing this process's lease owner name. Made before
 * the service's dependencies (which hold it, so that commands can nudge it) and started with the
 * workers made from those dependencies: nothing is set on the dependencies after they are built.
 */
export class Workers {
  private workers: Worker[] = [];
  private readonly owner = processOwner();

  constructor(
    private readonly pool: Pool,
    private readonly options: { clock: () => Date; logger: Logger },
  ) {}

  start(specs: readonly WorkerSpec[]): void {
    if (this.workers.length > 0) throw new Error('the workers are started already');
    const kinds = specs.map((s) => s.kind);
    const repeated = kinds.find((kind, i) => kinds.indexOf(kind) !== i);
    if (repeated) throw new Error(`two workers declare the work kind ${repeated}`);
    this.workers = specs.map((spec) => new Worker(this.pool, spec, { ...this.options, owner: this.owner }));
    for (const worker of this.workers) worker.start();
  }

  /**
   * Wakes the idle workers of a kind to claim at once; without a kind, as `nudgeEnqueued()`.
   */
  nudge(kind?: string): void {
    if (kind === undefined) this.nudgeEnqueued();
    else for (const worker of this.workers) if (worker.spec.kind === kind) worker.nudge();
  }

  /**
   * After a projection's commit: wakes the idle workers of those `kinds` (all kinds when absent) that
   * this process has enqueued items of within `NUDGE_WINDOW_MS`. Each commit woke every idle worker
   * before, and then every kind its projection may enqueue: during a column run, most claims found
   * nothing (the webhook reactor's commits woke the deliveries with no subscription to deliver to).
   * Items made due by the clock alone, or by another process, are found by the workers' poll.
   */
  nudgeEnqueued(kinds?: readonly string[]): void {
    const since = performance.now() - NUDGE_WINDOW_MS;
    const any = lastEnqueueOf('*') >= since;
    for (const worker of this.workers) {
      const kind = worker.spec.kind;
      if (kinds && !kinds.includes(kind)) continue;
      if (any || lastEnqueueOf(kind) >= since) worker.nudge();
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
  }
}
