import type { Logger } from 'pino';
import type { Pool } from '../db/pool.ts';
import { renew } from './queue.ts';

/**
 * Keeps the leases of what a worker holds (src/work/worker.ts): renewed every third of their length
 * while it runs; an item whose lease is found lost is aborted.
 */
export class LeaseRenewal {
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly pool: Pool,
    private readonly holder: { owner: string; leaseMs: number; kind: string; logger: Logger },
    /** The items held, by id: what is renewed, and what is aborted when its lease is lost. */
    private readonly held: ReadonlyMap<string, { controller: AbortController }>,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.renewHeld(), Math.max(50, this.holder.leaseMs / 3));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async renewHeld(): Promise<void> {
    const ids = [...this.held.keys()];
    if (ids.length === 0) return;
    try {
      const held = await renew(this.pool, this.holder.owner, ids, this.holder.leaseMs);
      for (const id of ids) {
        // Taken over by another process after our lease ran out: stop working on it.
        if (!held.has(id)) this.held.get(id)?.controller.abort(new Error('lease lost'));
      }
    } catch (error) {
      this.holder.logger.warn({ err: error, kind: this.holder.kind }, 'renewing work leases failed');
    }
  }
}
