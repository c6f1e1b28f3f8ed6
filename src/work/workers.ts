import type { Logger } from 'pino';
import type { Pool } from '../db/pool.ts';
import { processOwner, Worker, type WorkerSpec } from './worker.ts';

/** The service's workers, one per kind of work, sharing this process's lease owner name. */
export class Workers {
  private readonly workers: Worker[];

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

  /** Wakes the idle workers of a kind (or of every kind) to claim at once. */
  nudge(kind?: string): void {
    for (const worker of this.workers) if (kind === undefined || worker.spec.kind === kind) worker.nudge();
  }

  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop()));
  }
}
