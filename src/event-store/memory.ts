import { randomUUID } from 'node:crypto';
import { Observable } from 'rxjs';
import { atomicParts } from './atomic.ts';
import { canonicalUuid, MemoryLog, type PreparedPart, recordedOf, type StoredEvent } from './memory-log.ts';
import type {
  AppendResult,
  AtomicAppendResult,
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

/**
 * The EventStore port in memory, for specs that need no database (a decider or API spec, a process
 * manager's test). It passes the contract suite the real adapters pass (test/unit/kernel/
 * event-store-memory.test.ts) and keeps their rules where the contract is silent: events validated by
 * the registry on append and decoded on every read, ids compared as PostgreSQL compares uuids, a
 * re-sent append answered as PostgreSQL answers it. Positions are PostgreSQL's pair too: the commit
 * (one per append call, or per appendToStreams batch, as a transaction) and the event's place in the
 * log. Nothing is persisted; one store is one log.
 */
export class MemoryEventStore implements EventStore {
  readonly kind = 'memory';
  private readonly log = new MemoryLog();
  /** Each live subscription's wake-up: called after every commit. */
  private readonly followers = new Set<{ wake(): void; complete(): void }>();

  constructor(private readonly registry: EventRegistry) {}

  async append(
    stream: string,
    events: NewEvent[],
    options: { expectedRevision?: ExpectedRevision } = {},
  ): Promise<AppendResult> {
    const part = this.prepare({ stream, events, expectedRevision: options.expectedRevision });
    const result = this.log.append(part, this.log.begin());
    this.wakeFollowers();
    return result;
  }

  /**
   * All parts under one commit, as the PostgreSQL adapter's one statement: each checked on its own
   * and failing alone (an invalid event, a wrong expectation, a colliding id), the others landing.
   */
  async appendToStreams(appends: readonly StreamAppend[]): Promise<StreamAppendOutcome[]> {
    const commit = this.log.begin();
    const outcomes = appends.map((append): StreamAppendOutcome => {
      try {
        return { ok: true, result: this.log.append(this.prepare(append), commit) };
      } catch (error) {
        return { ok: false, error: error as Error };
      }
    });
    if (outcomes.some((o) => o.ok)) this.wakeFollowers();
    return outcomes;
  }

  /** All parts checked, then written under one commit, or none (the adapter's one transaction). */
  async appendAtomically(appends: readonly StreamAppend[]): Promise<AtomicAppendResult> {
    const parts = atomicParts(appends).map((a) => this.prepare(a, true));
    const result = this.log.appendAtomically(parts, this.log.begin());
    if (parts.some((p) => p.events.length > 0)) this.wakeFollowers();
    return result;
  }

  private prepare(append: StreamAppend, conditionAllowed = false): PreparedPart {
    if (append.events.length === 0 && !conditionAllowed) throw new Error('append needs at least one event');
    return {
      stream: append.stream,
      expectedRevision: append.expectedRevision ?? 'any',
      // Every event validated before any id is looked at, as the adapter validates before its insert.
      events: append.events
        .map((e) => this.registry.prepare(e))
        .map(({ id, type, data, metadata }) => ({
          id: canonicalUuid(id ?? randomUUID()),
          type,
          data,
          metadata,
        })),
    };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const { from, limit } = options;
    let events = this.log.stream(stream);
    if (options.direction === 'backwards') {
      events = events.filter((e) => from === undefined || e.revision <= from).reverse();
    } else if (from !== undefined) {
      events = events.filter((e) => e.revision >= from);
    }
    return events.slice(0, limit).map((e) => this.decode(e));
  }

  async readStreams(
    reads: readonly { stream: string; from?: bigint }[],
  ): Promise<Map<string, RecordedEvent[]>> {
    const out = new Map<string, RecordedEvent[]>();
    for (const { stream, from } of reads)
      out.set(stream, await this.readStream(stream, { from: from ?? 0n }));
    return out;
  }

  async readLastEvents(streams: readonly string[]): Promise<Map<string, RecordedEvent>> {
    const out = new Map<string, RecordedEvent>();
    for (const stream of new Set(streams)) {
      const last = this.log.stream(stream).at(-1);
      if (last) out.set(stream, this.decode(last));
    }
    return out;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const limit = options.limit ?? 1000;
    const types = options.types && new Set(options.types);
    const out: RecordedEvent[] = [];
    for (let i = this.indexAfter(options.from ?? START); i < this.log.all.length && out.length < limit; i++) {
      const event = this.log.all[i]!;
      if (!types || types.has(event.type)) out.push(this.decode(event));
    }
    return out;
  }

  /**
   * Catches up and follows from one cursor into the log. Events are handed over after the append that
   * wrote them has returned, never inside it, as the real adapters' tails do: a subscriber that appends
   * in its handler does not see its own event before the handler ends.
   */
  subscribeAll(from: Position = START): Observable<RecordedEvent> {
    return new Observable<RecordedEvent>((subscriber) => {
      let next = this.indexAfter(from);
      let scheduled: NodeJS.Immediate | undefined;
      const drain = () => {
        scheduled = undefined;
        while (!subscriber.closed && next < this.log.all.length) {
          let event: RecordedEvent;
          try {
            event = this.decode(this.log.all[next++]!);
          } catch (error) {
            subscriber.error(error);
            return;
          }
          subscriber.next(event);
        }
      };
      const follower = {
        wake: () => {
          scheduled ??= setImmediate(drain);
        },
        complete: () => subscriber.complete(),
      };
      this.followers.add(follower);
      follower.wake();
      return () => {
        clearImmediate(scheduled);
        this.followers.delete(follower);
      };
    });
  }

  async head(): Promise<Position> {
    return this.log.head();
  }

  async ping(): Promise<void> {}

  /** Ends the live subscriptions, as closing the EventStoreDB adapter does; the log stays readable. */
  async close(): Promise<void> {
    for (const follower of [...this.followers]) follower.complete();
  }

  private wakeFollowers(): void {
    for (const follower of this.followers) follower.wake();
  }

  /** The first index of the log strictly after `from`: the log is in position order. */
  private indexAfter(from: Position): number {
    const all = this.log.all;
    let low = 0;
    let high = all.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (comparePositions(all[mid]!.position, from) <= 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private decode(event: StoredEvent): RecordedEvent {
    return this.registry.decode(recordedOf(event));
  }
}
