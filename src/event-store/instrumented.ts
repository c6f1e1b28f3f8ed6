import type { Observable } from 'rxjs';
import { eventsAppended } from '../metrics-registry.ts';
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

function countAppended(events: readonly NewEvent[]): void {
  for (const event of events) eventsAppended.inc({ type: event.type });
}

/**
 * The event store, counting appended events by type for /metrics. A decorator, so both adapters are
 * counted the same way and neither knows about metrics. A re-sent append (same event ids) that the
 * store answers as a no-op is counted again: the counter is of successful append calls' events.
 */
export class InstrumentedEventStore implements EventStore {
  /** Present when the inner store has it, so callers see the same capability through the decorator. */
  readonly appendAtomically?: EventStore['appendAtomically'];

  constructor(private readonly inner: EventStore) {
    const atomically = inner.appendAtomically?.bind(inner);
    if (atomically) {
      this.appendAtomically = async (appends) => {
        const result = await atomically(appends);
        for (const append of appends) countAppended(append.events);
        return result;
      };
    }
  }

  get eventDataSql(): EventStore['eventDataSql'] {
    return this.inner.eventDataSql;
  }

  get kind(): EventStore['kind'] {
    return this.inner.kind;
  }

  async append(
    stream: string,
    events: NewEvent[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult> {
    const result = await this.inner.append(stream, events, options);
    countAppended(events);
    return result;
  }

  async appendToStreams(appends: readonly StreamAppend[]): Promise<StreamAppendOutcome[]> {
    const outcomes = await this.inner.appendToStreams(appends);
    outcomes.forEach((outcome, i) => {
      if (outcome.ok) countAppended(appends[i]!.events);
    });
    return outcomes;
  }

  readLastEvents(streams: readonly string[]): Promise<Map<string, RecordedEvent>> {
    return this.inner.readLastEvents(streams);
  }

  readStreams(reads: readonly { stream: string; from?: bigint }[]): Promise<Map<string, RecordedEvent[]>> {
    return this.inner.readStreams(reads);
  }

  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]> {
    return this.inner.readStream(stream, options);
  }

  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]> {
    return this.inner.readAll(options);
  }

  subscribeAll(from?: Position): Observable<RecordedEvent> {
    return this.inner.subscribeAll(from);
  }

  head(): Promise<Position> {
    return this.inner.head();
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

export const instrumentEventStore = (store: EventStore): EventStore => new InstrumentedEventStore(store);
