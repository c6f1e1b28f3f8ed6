import type { FastifyBaseLogger } from 'fastify';
import { type ContentApiClient, ContentApiError } from '../../src/content-api/client.ts';
import { htmlOf, mapArticle, unwrapArticle } from '../../src/content-api/mapping.ts';
import type { EventMetadata } from '../../src/event-store/port.ts';
import type { ArticleWriter } from './article-writer.ts';
import type { SyncReport } from './sync-report.ts';

/** Everything one sync run shares between its items. */
export interface SyncContext {
  client: ContentApiClient;
  /** Where fetched articles are stored: the service's writer (ServiceParts.articleWriter). */
  write: ArticleWriter;
  clock: () => Date;
  metadata: EventMetadata;
  source: 'full' | 'named';
  report: SyncReport;
  logger: Pick<FastifyBaseLogger, 'error' | 'warn' | 'info'>;
}

export interface SyncTarget {
  kind: string;
  slug: string;
}

/**
 * Fetches one article (unless the list page already carried its HTML), maps it and stores it at once,
 * so a sync that dies midway keeps every article it got to. Any failure becomes an entry of `errors`;
 * nothing here throws.
 */
export async function syncItem(ctx: SyncContext, order: number, target: SyncTarget, listed?: unknown) {
  const { kind, slug } = target;
  const fail = (code: string, message: string, status?: number) =>
    ctx.report.failed(order, { slug, kind, code, message, ...(status !== undefined ? { status } : {}) });
  let raw = listed;
  const listedArticle = listed === undefined ? undefined : unwrapArticle(listed);
  if (!listedArticle || htmlOf(listedArticle) === undefined) {
    try {
      raw = (await ctx.client.getArticle(slug)).raw;
    } catch (error) {
      if (error instanceof ContentApiError) return fail(error.code, error.message, error.status);
      ctx.logger.error({ err: error, slug }, 'content API call failed');
      return fail('upstream_failed', 'The content API could not be read.');
    }
  }
  const mapped = mapArticle(raw, slug);
  if (!mapped.ok) return fail(mapped.code, mapped.message);
  try {
    // Batched with the other writes under way (articleWriter); apart from the content API's own limit
    // on fetches, so that writing never leaves the fetching idle (and the other way round).
    const stored = await ctx.write({
      command: { kind, article: mapped.article, source: ctx.source },
      metadata: ctx.metadata,
      now: ctx.clock(),
    });
    ctx.report.stored(order, slug, stored.updatedAt, stored.position, kind);
    if (stored.changed) ctx.report.changed.push({ kind, slug });
  } catch (error) {
    // The database's own message may name hosts or users: log it, answer with a plain one.
    ctx.logger.error({ err: error, slug, kind }, 'article could not be stored');
    fail('store_failed', 'The article could not be stored.');
  }
}
