import { Semaphore } from '../src/content-api/semaphore.ts';
import { type SyncContext, syncItem } from './sync-item.ts';
import type { NamedSyncRequest } from './sync-request.ts';

/**
 * Items under way at once (fetching, waiting to be stored, storing). Fetches and writes have their
 * own, lower limits; this one only bounds what is held in memory.
 */
export const ITEM_CONCURRENCY = 64;

/** Syncs exactly the named slugs; each failure is isolated in the report. */
export async function runNamedSync(ctx: SyncContext, request: NamedSyncRequest): Promise<void> {
  request.rejected.forEach((error, i) => {
    ctx.report.failed(i - request.rejected.length, error);
  });
  const slots = new Semaphore(ITEM_CONCURRENCY);
  await Promise.all(request.targets.map((target, order) => slots.run(() => syncItem(ctx, order, target))));
}
