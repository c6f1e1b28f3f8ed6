import { handleCommandBatch } from '../../src/command-batch.ts';
import { articleStream, type SyncArticleCommand, syncArticle } from '../../src/domain/content/article.ts';
import type { EventMetadata, EventStore, Position } from '../../src/event-store/port.ts';
import { GroupCommit } from '../../src/group-commit.ts';

export interface StoredArticle {
  changed: boolean;
  updatedAt: string;
  /** Where the new event landed; undefined when nothing was appended. */
  position?: Position;
}

export interface ArticleWrite {
  command: SyncArticleCommand;
  metadata: EventMetadata;
  now: Date;
}

/** Articles stored by one writer go out together: batches of up to this many, one transaction each. */
const BATCH = 100;
/** Batches written at once: one being committed while the next one gathers. */
const IN_FLIGHT = 2;

export type ArticleWriter = (write: ArticleWrite) => Promise<StoredArticle>;

declare module '../../src/deps.ts' {
  interface ServiceParts {
    /** The service's one article writer, so that concurrent syncs (a burst of notifications) share batches. */
    articleWriter: ArticleWriter;
  }
}

/**
 * Stores fetched articles as they come, group-commit style: each write waits only for the batch it
 * joins (a lone write leaves at once), and a batch is one read of the streams' last events and one
 * append to all of them. A named and a full sync racing on one article are decided again.
 */
export function articleWriter(store: EventStore): ArticleWriter {
  const group = new GroupCommit(
    (writes: ArticleWrite[]) =>
      handleCommandBatch({
        store,
        decider: syncArticle,
        items: writes.map((w) => ({
          stream: articleStream.name(w.command.kind, w.command.article.slug),
          command: w.command,
          metadata: w.metadata,
          now: w.now,
        })),
        maxRetries: 5,
      }),
    { maxBatch: BATCH, maxInFlight: IN_FLIGHT },
  );
  return async (write) => {
    const outcome = await group.submit(write);
    if (!outcome.ok) throw outcome.error;
    const { events, state, appended } = outcome.result;
    return {
      changed: events.length > 0,
      updatedAt: state.updatedAt ?? write.now.toISOString(),
      position: appended?.position,
    };
  };
}
