import type { Subscription } from 'rxjs';
import type { EventStore, RecordedEvent } from '../event-store/port.ts';
import type { BatchCommitter } from './batch-committer.ts';

/** Live tail events buffered beyond this drop the runner back to paging (the log outran the tables). */
const MAX_LIVE_BACKLOG = 10_000;

/** Where a runner keeps its current live subscription, so that it can cut it short. */
export interface LiveSlot {
  current?: Subscription;
}

/**
 * Follows the live tail. An idle runner applies what arrives at once: a page the tail hands over
 * (synchronously, event by event) becomes one batch on the next microtask, with no batch window to
 * wait out, because read-your-writes waits on it. While a batch is being applied, what arrives
 * meanwhile gathers into the next one, so batches grow with the load by themselves. Returns to paging
 * when the tail outruns the tables; rejects when the tail or a batch fails (the database went away).
 */
export function followLive(
  store: EventStore,
  batches: BatchCommitter,
  batchSize: number,
  live: LiveSlot,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const queue: RecordedEvent[] = [];
    let draining = false;
    // This follow's own subscription: a drain of an ended follow must not go on into the next one.
    let following: Subscription | undefined;
    const finish = (error?: unknown) => {
      following?.unsubscribe();
      if (live.current === following) live.current = undefined;
      if (error === undefined) resolve();
      else reject(error);
    };
    const drain = async () => {
      try {
        while (queue.length > 0 && following && !following.closed) {
          if (queue.length > MAX_LIVE_BACKLOG) return finish();
          if (!(await batches.applyBatch(queue.splice(0, batchSize)))) return finish();
        }
      } catch (error) {
        return finish(error);
      }
      // Cleared in the same turn as the empty-queue check: an event arriving later starts a drain.
      draining = false;
    };
    following = store.subscribeAll(batches.position).subscribe({
      next: (event) => {
        queue.push(event);
        if (draining) return;
        draining = true;
        queueMicrotask(drain);
      },
      error: (e) => finish(e),
    });
    following.add(() => resolve());
    live.current = following;
  });
}
