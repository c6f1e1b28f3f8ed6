import { createHash } from 'node:crypto';
import { z } from 'zod';
import { type ArticleContent, articleContentSchema } from '../../content-api/article.ts';
import { defineStream, type EventsOf } from '../../stream.ts';

/**
 * Storing one fetched article in its stream `article-<kind>.<slug>`. Every ArticleSynced carries the
 * article's whole mapped content, so the last event of the stream is the article's state.
 */
const ArticleSynced = articleContentSchema.extend({
  kind: z.string(),
  /** sha256 of the mapped content: an unchanged article is recognised without comparing fields. */
  contentHash: z.string(),
  source: z.enum(['full', 'named']),
  fetchedAt: z.string(),
});
const articleEvents = { ArticleSynced };
export type ArticleSyncedData = z.infer<typeof ArticleSynced>;
export type ArticleEvent = EventsOf<typeof articleEvents>;

export interface ArticleState {
  contentHash?: string;
  /** The row's updated_at: the provider's update time, else its publication time, else when it was fetched. */
  updatedAt?: string;
}

export interface SyncArticleCommand {
  kind: string;
  article: ArticleContent;
  source: 'full' | 'named';
}

/**
 * sha256 of the mapped content. The HTML, nearly all of an article, is hashed as it is: written into a
 * JSON string first it cost more than the whole append. The NUL between the two parts cannot occur in
 * JSON text, so no two articles share an input.
 */
export function contentHash(kind: string, article: ArticleContent): string {
  const { html, ...fields } = article;
  return createHash('sha256')
    .update(JSON.stringify({ kind, ...fields }))
    .update('\u0000')
    .update(html)
    .digest('hex');
}

/**
 * The hash as events stored before contentHash took its present form: an article stored then and
 * unchanged since must still count as unchanged, not be appended again on the next sync.
 */
function earlierContentHash(kind: string, article: ArticleContent): string {
  return createHash('sha256')
    .update(JSON.stringify({ kind, ...article }))
    .digest('hex');
}

/** `hash` is the command's contentHash; the earlier form is worked out only when that one differs. */
const unchanged = (stored: string | undefined, hash: string, command: SyncArticleCommand): boolean =>
  stored !== undefined && (stored === hash || stored === earlierContentHash(command.kind, command.article));

export function effectiveUpdatedAt(
  data: Pick<ArticleSyncedData, 'updatedAt' | 'publishedAt' | 'fetchedAt'>,
): string {
  return data.updatedAt ?? data.publishedAt ?? data.fetchedAt;
}

interface ArticleHistory extends ArticleState {
  content?: ArticleSyncedData;
}

/** `article-<kind>.<slug>`: each ArticleSynced holds the whole article, so its last event is its state. */
export const articleStream = defineStream({
  category: 'article',
  id: (kind: string, slug: string) => `${kind}.${slug}`,
  events: articleEvents,
  initialState: (): ArticleHistory => ({}),
  evolve: (_state, event): ArticleHistory => {
    switch (event.type) {
      case 'ArticleSynced':
        return {
          contentHash: event.data.contentHash,
          updatedAt: effectiveUpdatedAt(event.data),
          content: event.data,
        };
      default: {
        const never: never = event.type;
        return never;
      }
    }
  },
  history: {
    description: 'an article as stored then: the content of its last sync and its updated_at',
    view: (state) => ({ ...state.content, updatedAt: state.updatedAt }),
  },
});

/** Appends the article when its content changed; unchanged content appends nothing. */
export const syncArticle = articleStream.decider((command: SyncArticleCommand, state, now) => {
  const hash = contentHash(command.kind, command.article);
  // A re-sync of the same article leaves the log as it was.
  if (unchanged(state.contentHash, hash, command)) return [];
  return [
    {
      type: 'ArticleSynced',
      data: {
        ...command.article,
        kind: command.kind,
        contentHash: hash,
        source: command.source,
        fetchedAt: now.toISOString(),
      },
    },
  ];
});
