import { type SyncContext, syncItem } from './sync-item.ts';
import type { NamedSyncRequest } from './sync-request.ts';

/**
 * Syncs exactly the named slugs (at most 100), all under way at once: the client limits fetches and
 * syncItem limits writes. Each failure is isolated in the report.
 */
export async function runNamedSync(ctx: SyncContext, request: NamedSyncRequest): Promise<void> {
  request.rejected.forEach((error, i) => {
    ctx.report.failed(i - request.rejected.length, error);
  });
  await Promise.all(request.targets.map((target, order) => syncItem(ctx, order, target)));
}
