import { createHash } from 'node:crypto';
import { z } from 'zod';
import { type Decider, handleCommand } from '../src/command.ts';
import { type ArticleContent, articleContentSchema } from '../src/content-api/article.ts';
import type { EventMetadata, EventStore, Position } from '../src/event-store/port.ts';
import { eventRegistry } from '../src/event-store/registry.ts';
import { streams } from '../src/streams.ts';

/**
 * Storing one fetched article in its stream `article-<kind>.<slug>`. Every ArticleSynced carries the
 * article's whole mapped content, so the last event of the stream is the article's state.
 */
export const articleSynced = eventRegistry.register(
  'ArticleSynced',
  articleContentSchema.extend({
    kind: z.string(),
    /** sha256 of the mapped content: an unchanged article is recognised without comparing fields. */
    contentHash: z.string(),
    source: z.enum(['full', 'named']),
    fetchedAt: z.string(),
  }),
);
export type ArticleSyncedData = z.infer<typeof articleSynced>;
export type ArticleEvent = { type: 'ArticleSynced'; data: ArticleSyncedData };

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

export function contentHash(kind: string, article: ArticleContent): string {
  return createHash('sha256')
    .update(JSON.stringify({ kind, ...article }))
    .digest('hex');
}

export function effectiveUpdatedAt(
  data: Pick<ArticleSyncedData, 'updatedAt' | 'publishedAt' | 'fetchedAt'>,
): string {
  return data.updatedAt ?? data.publishedAt ?? data.fetchedAt;
}

export const articleDecider: Decider<ArticleState, SyncArticleCommand, ArticleEvent> = {
  initialState: () => ({}),
  evolve: (_state, event) => {
    switch (event.type) {
      case 'ArticleSynced':
        return { contentHash: event.data.contentHash, updatedAt: effectiveUpdatedAt(event.data) };
      default: {
        const never: never = event.type;
        return never;
      }
    }
  },
  decide: (command, state, now) => {
    const hash = contentHash(command.kind, command.article);
    // Unchanged content appends nothing: a re-sync of the same article leaves the log as it was.
    if (state.contentHash === hash) return [];
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
  },
};

export interface StoredArticle {
  changed: boolean;
  updatedAt: string;
  /** Where the new event landed; undefined when nothing was appended. */
  position?: Position;
}

/** Decide and append against the revision read; a named and a full sync racing on one article retry. */
export async function storeArticle(options: {
  store: EventStore;
  command: SyncArticleCommand;
  metadata: EventMetadata;
  now: Date;
}): Promise<StoredArticle> {
  const { command, now } = options;
  const result = await handleCommand({
    ...options,
    stream: streams.article(command.kind, command.article.slug),
    decider: articleDecider,
    maxRetries: 5,
    stateInLastEvent: true,
  });
  return {
    changed: result.events.length > 0,
    updatedAt: result.state.updatedAt ?? now.toISOString(),
    position: result.appended?.position,
  };
}
