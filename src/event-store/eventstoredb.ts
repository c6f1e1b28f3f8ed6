import { randomUUID } from 'node:crypto';
import {
  BACKWARDS,
  END,
  START as ESDB_START,
  EventStoreDBClient,
  excludeSystemEvents,
  FORWARDS,
  type JSONType,
  jsonEvent,
  type ReadPosition,
  type ResolvedEvent,
  StreamNotFoundError,
  WrongExpectedVersionError,
} from '@eventstore/db-client';
import type { Channel } from '@grpc/grpc-js';
import { Observable } from 'rxjs';
import { appendEach, readEach, readLastEach } from './each-stream.ts';
import {
  isSystemEvent,
  toEsdbExpected,
  toEsdbPosition,
  toRecorded,
  toWrongExpectedRevision,
} from './eventstoredb-mapping.ts';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  StreamAppendOutcome,
} from './port.ts';
import { comparePositions, START } from './port.ts';
import type { EventRegistry } from './registry.ts';

/** $all is read in pages of at least this many events: system events in between must not starve a page. */
const MIN_PAGE = 64;
const MAX_PAGE = 4096;

/**
 * The EventStore port on EventStoreDB (`EVENTSTORE_URL=esdb://...`), through `@eventstore/db-client`.
 * Positions are the server's own (commit, prepare) pairs. $all reads and subscriptions leave out what
 * the server writes for itself: `$`-types and `$`-streams.
 */
export class EventStoreDbStore implements EventStore {
  readonly kind = 'eventstoredb';
  /** Completes the live subscriptions on close: cancelling the client's calls does not end them. */
  private readonly following = new Set<() => void>();

  constructor(
    private readonly client: EventStoreDBClient,
    private readonly registry: EventRegistry,
  ) {}

  async append(
    stream: string,
    events: NewEvent[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const expected = options.expectedRevision ?? 'any';
    const prepared = events.map((e) => this.registry.prepare({ ...e, id: e.id ?? randomUUID() }));
    try {
      const result = await this.client.appendToStream(
        stream,
        prepared.map((e) =>
          jsonEvent({ id: e.id, type: e.type, data: e.data as JSONType, metadata: e.metadata as JSONType }),
        ),
        { expectedRevision: toEsdbExpected(expected) },
      );
      // The server itself answers a retry of the same event ids with the first write's revision and,
      // on current versions, its position. An older server, or one whose index has not caught up with
      // that write yet, leaves the position out; stream reads carry no global position to look it up
      // by, so the head of $all stands in: never before the write, so waiting for it stays safe.
      return {
        nextExpectedRevision: result.nextExpectedRevision,
        position: result.position ?? (await this.head()),
      };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) throw toWrongExpectedRevision(stream, expected, error);
      throw error;
    }
  }

  /** The client has no multi-stream append: one append per stream, all under way at once. */
  appendToStreams(appends: readonly StreamAppend[]): Promise<StreamAppendOutcome[]> {
    return appendEach(this, appends);
  }

  readLastEvents(streams: readonly string[]): Promise<Map<string, RecordedEvent>> {
    return readLastEach(this, streams);
  }

  readStreams(reads: readonly { stream: string; from?: bigint }[]): Promise<Map<string, RecordedEvent[]>> {
    return readEach(this, reads);
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    if (options.limit === 0) return [];
    const backwards = options.direction === 'backwards';
    const read = this.client.readStream(stream, {
      direction: backwards ? BACKWARDS : FORWARDS,
      fromRevision: options.from ?? (backwards ? END : ESDB_START),
      ...(options.limit === undefined ? {} : { maxCount: options.limit }),
    });
    const out: RecordedEvent[] = [];
    try {
      for await (const resolved of read as AsyncIterable<ResolvedEvent>) {
        if (resolved.event) out.push(toRecorded(resolved.event, this.registry));
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return out;
  }

  /**
   * The client reads $all from a position inclusively and cannot filter a read (only a subscription),
   * so pages skip the event at `from` and the system events, and go on until `limit` events are found
   * or a page comes back short (the end of the log).
   */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.limit ?? 1000;
    const out: RecordedEvent[] = [];
    let after = options.from ?? START;
    while (out.length < limit) {
      const pageSize = Math.min(Math.max(limit - out.length + 1, MIN_PAGE), MAX_PAGE);
      const page = await this.readAllPage(toEsdbPosition(after), pageSize, 'forwards');
      let advanced = false;
      for (const event of page) {
        if (!event.position || comparePositions(event.position, after) <= 0) continue;
        after = event.position;
        advanced = true;
        if (isSystemEvent(event)) continue;
        out.push(toRecorded(event, this.registry));
        if (out.length === limit) break;
      }
      if (page.length < pageSize || !advanced) break;
    }
    return out;
  }

  subscribeAll(from: Position = START): Observable<RecordedEvent> {
    return new Observable<RecordedEvent>((subscriber) => {
      // The server skips system event types; `$`-streams with plain types are skipped here. A
      // subscription from a position starts after it, as ours does; the check below only guards that.
      const subscription = this.client.subscribeToAll({
        fromPosition: toEsdbPosition(from),
        filter: excludeSystemEvents(),
      });
      subscription.on('data', (resolved: ResolvedEvent) => {
        const event = resolved.event;
        if (!event?.position || isSystemEvent(event) || comparePositions(event.position, from) <= 0) return;
        try {
          subscriber.next(toRecorded(event, this.registry));
        } catch (error) {
          subscriber.error(error);
        }
      });
      subscription.on('error', (error) => subscriber.error(error));
      subscription.on('end', () => subscriber.complete());
      const complete = () => subscriber.complete();
      this.following.add(complete);
      return () => {
        this.following.delete(complete);
        void subscription.unsubscribe();
      };
    });
  }

  /** Reads $all backwards past the system events at its end. */
  async head(): Promise<Position> {
    let before: ReadPosition = END;
    for (;;) {
      const page = await this.readAllPage(before, MIN_PAGE, 'backwards');
      for (const event of page) {
        if (!event.position) continue;
        if (before !== END && comparePositions(event.position, before as Position) >= 0) continue;
        if (!isSystemEvent(event)) return event.position;
        before = event.position;
      }
      if (page.length < MIN_PAGE) return START;
    }
  }

  async ping(): Promise<void> {
    await this.readAllPage(END, 1, 'backwards');
  }

  async close(): Promise<void> {
    for (const complete of [...this.following]) complete();
    await this.client.dispose();
    // dispose() cancels the calls but leaves the channel (and its keep-alive timer) open, which would
    // hold the process; the client keeps no public way to close it.
    const channel = await (this.client as unknown as { getChannel(): Promise<Channel> }).getChannel();
    channel.close();
  }

  private async readAllPage(
    from: ReadPosition,
    maxCount: number,
    direction: 'forwards' | 'backwards',
  ): Promise<NonNullable<ResolvedEvent['event']>[]> {
    const read = this.client.readAll({
      fromPosition: from,
      maxCount,
      direction: direction === 'backwards' ? BACKWARDS : FORWARDS,
    });
    const events: NonNullable<ResolvedEvent['event']>[] = [];
    for await (const resolved of read as AsyncIterable<ResolvedEvent>) {
      if (resolved.event) events.push(resolved.event);
    }
    return events;
  }
}

/** Connects lazily: the client opens its channel on the first call. */
export function connectEventStoreDb(url: string, registry: EventRegistry): EventStoreDbStore {
  return new EventStoreDbStore(EventStoreDBClient.connectionString(url), registry);
}
