import { Semaphore } from '../src/content-api/semaphore.ts';
import { type SyncContext, syncItem } from './sync-item.ts';
import type { NamedSyncRequest } from './sync-request.ts';

/** Items fetched and stored at once; the client keeps detail requests to its own, lower limit. */
export const ITEM_CONCURRENCY = 16;

/** Syncs exactly the named slugs; each failure is isolated in the report. */
export async function runNamedSync(ctx: SyncContext, request: NamedSyncRequest): Promise<void> {
  request.rejected.forEach((error, i) => {
    ctx.report.failed(i - request.rejected.length, error);
  });
  const slots = new Semaphore(ITEM_CONCURRENCY);
  await Promise.all(request.targets.map((target, order) => slots.run(() => syncItem(ctx, order, target))));
}
