/** A rendered article page and what it was rendered from. */
export interface CachedPage {
  contentHash: string;
  lastModified: Date;
  etag: string;
  html: string;
}

interface Entry extends CachedPage {
  checkedAt: number;
}

/**
 * Rendered article pages of one process, so that a page view costs a lookup rather than a 20 KB row
 * and a render. An entry is served without asking the database for `freshMs` (1 s by default) and then
 * revalidated against the row's content hash: a page changed by a sync in another process shows at
 * most that much later (the responses themselves say `max-age=60`). A sync in this process drops the
 * entries it changed, so its own read-your-writes holds exactly.
 */
export class PageCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** Bumped by every invalidation: a render started before it must not be cached after it. */
  private epoch = 0;

  constructor(
    private readonly maxBytes = 32 * 1024 * 1024,
    readonly freshMs = 1000,
  ) {}

  get currentEpoch(): number {
    return this.epoch;
  }

  /** The entry, with whether it may be served without revalidation. */
  get(key: string, now = Date.now()): { page: CachedPage; fresh: boolean } | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Most recently used last: eviction takes from the front.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return { page: entry, fresh: now - entry.checkedAt < this.freshMs };
  }

  /** The row still has the cached content: serve the entry for another `freshMs`. */
  revalidated(key: string, now = Date.now()): void {
    const entry = this.entries.get(key);
    if (entry) entry.checkedAt = now;
  }

  set(key: string, page: CachedPage, epoch: number, now = Date.now()): void {
    if (epoch !== this.epoch) return;
    const size = page.html.length * 2;
    if (size > this.maxBytes / 4) return;
    this.delete(key);
    this.entries.set(key, { ...page, checkedAt: now });
    this.bytes += size;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.html.length * 2;
    }
  }

  invalidate(key: string): void {
    this.epoch++;
    this.delete(key);
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.html.length * 2;
  }
}

declare module '../../../src/deps.ts' {
  interface ServiceParts {
    /** The rendered public pages of this service (two services in one process never share pages). */
    pageCache: PageCache;
  }
}

export const pageKey = (kind: string, slug: string) => `${kind}\u0000${slug}`;
