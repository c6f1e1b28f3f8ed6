import { SLUG_PATTERN } from '../../src/content-api/article.ts';
import { ContentApiError, PAGE_SIZE } from '../../src/content-api/client.ts';
import { unwrapArticle } from '../../src/content-api/mapping.ts';
import { Semaphore } from '../../src/content-api/semaphore.ts';
import type { Pool } from '../../src/db/pool.ts';
import { withSessionLock } from '../../src/db/session-lock.ts';
import { AppError } from '../../src/errors.ts';
import { type SyncContext, syncItem } from './sync-item.ts';

/** A provider that never returns a short page would otherwise be paged forever. */
export const MAX_PAGES = 1000;
const LOCK_KEY = 'content-sync:full';

function listedSlug(item: unknown): unknown {
  if (typeof item === 'string') return item.trim();
  const slug = unwrapArticle(item)?.slug;
  return typeof slug === 'string' ? slug.trim() : slug;
}

export interface FullSyncOutcome {
  /** Nothing could be listed at all: the answer is a 502, with the same body shape. */
  firstPageFailed: boolean;
}

/**
 * Pages through `GET /posts?kind=blog&limit=100&offset=...` until a short page, storing each article
 * as soon as it is fetched (the client limits fetches, syncItem limits writes). Listing runs ahead of
 * storing by at most four pages, so memory stays flat however many articles there are.
 */
export async function runFullSync(
  ctx: SyncContext,
  kind = 'blog',
  options: { maxPages?: number } = {},
): Promise<FullSyncOutcome> {
  const maxPages = options.maxPages ?? MAX_PAGES;
  // Items under way (fetched or being fetched, not yet stored) at most: enough that fetching goes on
  // while two batches of writes commit (see articleWriter), few enough that memory stays flat.
  const backlog = new Semaphore(4 * PAGE_SIZE);
  const tasks: Promise<void>[] = [];
  const seen = new Set<string>();
  let order = 0;
  let previous: string | undefined;
  const pageError = (code: string, message: string, status?: number) =>
    ctx.report.failed(order++, {
      slug: '',
      kind,
      code,
      message,
      ...(status !== undefined ? { status } : {}),
    });

  for (let page = 0; ; page++) {
    if (page >= maxPages) {
      pageError('too_many_pages', `Stopped after ${maxPages} pages without reaching a short page.`);
      break;
    }
    let items: unknown[];
    try {
      items = (await ctx.client.listPage(page * PAGE_SIZE, kind)).items;
    } catch (error) {
      const known = error instanceof ContentApiError;
      if (!known) ctx.logger.error({ err: error }, 'content API list call failed');
      pageError(
        known ? error.code : 'upstream_failed',
        known ? error.message : 'The content API could not be read.',
        known ? error.status : undefined,
      );
      await Promise.all(tasks);
      return { firstPageFailed: page === 0 };
    }
    const slugs = items.map(listedSlug);
    const signature = JSON.stringify(slugs);
    if (page > 0 && items.length > 0 && signature === previous) {
      pageError(
        'repeated_page',
        `The page at offset ${page * PAGE_SIZE} repeats the previous page; stopped there.`,
      );
      break;
    }
    previous = signature;
    for (const [i, item] of items.entries()) {
      const slug = slugs[i];
      if (typeof slug !== 'string' || !SLUG_PATTERN.test(slug)) {
        ctx.report.failed(order++, {
          slug: typeof slug === 'string' ? slug.slice(0, 200) : '',
          kind,
          code: 'invalid_slug',
          message: `The list item at offset ${page * PAGE_SIZE + i} has no usable slug.`,
        });
        continue;
      }
      // Overlapping pages (a post published while paging shifts the offsets) list a slug twice.
      if (seen.has(slug)) continue;
      seen.add(slug);
      const release = await backlog.acquire();
      tasks.push(syncItem(ctx, order++, { kind, slug }, item).finally(release));
    }
    if (items.length < PAGE_SIZE) break;
  }
  await Promise.all(tasks);
  return { firstPageFailed: false };
}

/** One full sync at a time, across processes: a session-level advisory lock held for the whole sync. */
export const withFullSyncLock = <T>(pool: Pool, fn: () => Promise<T>): Promise<T> =>
  withSessionLock(
    pool,
    LOCK_KEY,
    {
      wait: false,
      busy: () => new AppError('sync_in_progress', 'A full sync is already running; try again later.'),
    },
    fn,
  );
