import type { Logger } from 'pino';
import type { Pool } from '../db/pool.ts';
import { enqueuesOf } from './queue.ts';
import { processOwner, Worker, type WorkerSpec } from './worker.ts';

/** The service's workers, one per kind of work, sharing this process's lease owner name. */
export class Workers {
  private readonly workers: Worker[];
  /** `enqueuesOf` each kind (and '*') at the last general nudge. */
  private readonly seen = new Map<string, number>();

  constructor(pool: Pool, specs: readonly WorkerSpec[], options: { clock: () => Date; logger: Logger }) {
    const kinds = specs.map((s) => s.kind);
    const repeated = kinds.find((kind, i) => kinds.indexOf(kind) !== i);
    if (repeated) throw new Error(`two workers declare the work kind ${repeated}`);
    const owner = processOwner();
    this.workers = specs.map((spec) => new Worker(pool, spec, { ...options, owner }));
  }

  start(): void {
    for (const worker of this.workers) worker.start();
  }

  /**
   * Wakes the idle workers of a kind to claim at once; without a kind (after a projection's commit),
   * those of every kind this process has enqueued items of since the last such nudge. Each commit woke
   * every idle worker before: during a column run, most of the database's work was claims finding
   * nothing. Items made due by the clock alone, or by another process, are found by the workers' poll.
   */
  nudge(kind?: string): void {
    const all = kind === undefined && this.enqueuedSince('*');
    for (const worker of this.workers) {
      const wake =
        kind === undefined ? this.enqueuedSince(worker.spec.kind) || all : worker.spec.kind === kind;
      if (wake) worker.nudge();
    }
  }

  private enqueuedSince(kind: string): boolean {
    const now = enqueuesOf(kind);
    if (now === (this.seen.get(kind) ?? 0)) return false;
    this.seen.set(kind, now);
    return true;
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
  }
}
