import { z } from 'zod';
import { DEFAULT_KIND } from '../../src/content-api/article.ts';
import { comparePositions, type Position } from '../../src/event-store/port.ts';
import { type SyncSource, syncMetrics } from '../../src/metrics-registry.ts';

/** One isolated failure: an article (or, with an empty slug, a list page) that could not be synced. */
export const syncErrorSchema = z.object({
  slug: z.string(),
  kind: z.string(),
  code: z.string(),
  message: z.string(),
  status: z.number().int().optional(),
});
export type SyncError = z.infer<typeof syncErrorSchema>;

/** The sync response of contract section 2.2; `kind` added to its items, since a row is (kind, slug). */
export const syncResponseSchema = z.object({
  synced: z.number().int(),
  items: z.array(
    z.object({ slug: z.string(), kind: z.string(), updated_at: z.string().describe('ISO 8601, UTC') }),
  ),
  errors: z.array(syncErrorSchema),
});
export type SyncResponse = z.infer<typeof syncResponseSchema>;

export const probeResponseSchema = z.object({ ok: z.literal(true) });

/**
 * Collects the outcome of one sync as its items finish, in whatever order, and answers in the order
 * the items were named (or listed).
 */
export class SyncReport {
  private readonly items: { order: number; slug: string; kind: string; updatedAt: string }[] = [];
  private readonly errors: { order: number; error: SyncError }[] = [];
  /** The furthest position appended: the response waits until site_content has passed it. */
  lastPosition?: Position;
  /** Articles whose content changed: their cached pages are dropped once the rows show it. */
  readonly changed: { kind: string; slug: string }[] = [];

  /** `source`: count the items into /metrics under it (src/metrics-registry.ts); none, count nothing. */
  constructor(private readonly source?: SyncSource) {}

  stored(order: number, slug: string, updatedAt: string, position?: Position, kind = DEFAULT_KIND): void {
    this.items.push({ order, slug, kind, updatedAt });
    if (this.source) syncMetrics.itemStored(this.source);
    if (position && (!this.lastPosition || comparePositions(position, this.lastPosition) > 0)) {
      this.lastPosition = position;
    }
  }

  failed(order: number, error: SyncError): void {
    this.errors.push({ order, error });
    // An entry without a slug is a list page, not an article.
    if (this.source) syncMetrics.itemFailed(this.source, error.code, error.slug !== '');
  }

  get storedCount(): number {
    return this.items.length;
  }

  toResponse(): SyncResponse {
    const items = [...this.items]
      .sort((a, b) => a.order - b.order)
      .map((i) => ({ slug: i.slug, kind: i.kind, updated_at: new Date(i.updatedAt).toISOString() }));
    const errors = [...this.errors].sort((a, b) => a.order - b.order).map((e) => e.error);
    return { synced: items.length, items, errors };
  }
}
