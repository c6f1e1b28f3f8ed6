import { IdempotencyConflictError, WrongExpectedRevisionError } from './errors.ts';
import type { AppendResult, AtomicAppendResult, ExpectedRevision, Position, RecordedEvent } from './port.ts';
import { comparePositions, START } from './port.ts';

/**
 * An event as the in-memory log keeps it: data and metadata as JSON text, parsed (and decoded by the
 * registry) on every read, as the PostgreSQL adapter parses a row's jsonb. So what a reader gets is
 * what JSON carries (a Date as its string, an undefined key gone), and no reader or writer can change
 * the log by changing an object it holds.
 */
export interface StoredEvent {
  id: string;
  stream: string;
  revision: bigint;
  position: Position;
  type: string;
  data: string;
  metadata: string;
  recordedAt: Date;
}

/** One stream's part of an append, validated by the registry, its ids given or made. */
export interface PreparedPart {
  stream: string;
  expectedRevision: ExpectedRevision;
  events: { id: string; type: string; data: unknown; metadata: unknown }[];
}

/**
 * The event ids the PostgreSQL `uuid` column takes (any case, hyphens or not, braces or not), in the
 * form it prints them: the store compares and returns ids in that one form, as PostgreSQL does.
 */
export function canonicalUuid(id: string): string {
  const hex = id.replace(/^\{(.*)\}$/, '$1').replaceAll('-', '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`invalid input syntax for type uuid: "${id}"`);
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The log of the in-memory store: every event in global order, each stream's events, and the ids
 * written. Appends take effect in one synchronous step, so a part is checked and written with nothing
 * in between: what `append_events` gets from its row lock on `streams`.
 */
export class MemoryLog {
  readonly all: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private readonly byId = new Map<string, StoredEvent>();
  /** Commit counter: one per append call (or appendToStreams batch), as a transaction id is. */
  private commits = 0n;

  stream(name: string): readonly StoredEvent[] {
    return this.streams.get(name) ?? [];
  }

  head(): Position {
    return this.all.at(-1)?.position ?? START;
  }

  /** A new commit: the parts appended under it share its number, as one transaction's rows share tx_id. */
  begin(): bigint {
    return ++this.commits;
  }

  /**
   * One part, by the rules of `append_events` and the adapter around it: the expectation checked
   * against the stream's current revision; ids written before answer with that earlier append's result
   * when they are all of this stream, and refuse it otherwise; else the events land at the next
   * revisions and positions.
   */
  append(part: PreparedPart, commit: bigint): AppendResult {
    const current = this.streams.get(part.stream);
    const actual = current ? BigInt(current.length - 1) : -1n;
    const ids = part.events.map((e) => e.id);
    const holds = expectationHolds(part.expectedRevision, actual);
    const earlier = ids.filter((id) => this.byId.has(id));
    // A failed expectation and a colliding id are both a retried request when the ids were written
    // before: the answer is the first one's.
    if (!holds || earlier.length > 0) {
      if (earlier.length > 0) return this.appendedBefore(part.stream, ids, earlier);
      throw new WrongExpectedRevisionError(
        part.stream,
        part.expectedRevision,
        actual < 0n ? 'no_stream' : actual,
      );
    }
    if (new Set(ids).size !== ids.length)
      throw new Error(`duplicate key value violates unique constraint on event_id in "${part.stream}"`);
    const events = current ?? [];
    for (const event of part.events) {
      const stored: StoredEvent = {
        id: event.id,
        stream: part.stream,
        revision: BigInt(events.length),
        position: { commit, prepare: BigInt(this.all.length + 1) },
        type: event.type,
        data: JSON.stringify(event.data),
        metadata: JSON.stringify(event.metadata ?? {}),
        recordedAt: new Date(),
      };
      events.push(stored);
      this.all.push(stored);
      this.byId.set(stored.id, stored);
    }
    this.streams.set(part.stream, events);
    const last = events.at(-1)!;
    return { nextExpectedRevision: last.revision, position: last.position };
  }

  /**
   * Parts that land together or not at all (`appendAtomically`): every expectation checked and every id
   * looked up before anything is written; a part without events is a condition only.
   */
  appendAtomically(parts: readonly PreparedPart[], commit: bigint): AtomicAppendResult {
    for (const part of parts) {
      const actual = BigInt(this.stream(part.stream).length - 1);
      if (!expectationHolds(part.expectedRevision, actual)) {
        throw new WrongExpectedRevisionError(
          part.stream,
          part.expectedRevision,
          actual < 0n ? 'no_stream' : actual,
        );
      }
      const written = part.events.filter((e) => this.byId.has(e.id)).map((e) => e.id);
      if (written.length > 0) throw new IdempotencyConflictError(part.stream, written);
    }
    const revisions = parts.map((part) =>
      part.events.length === 0
        ? BigInt(this.stream(part.stream).length - 1)
        : this.append(part, commit).nextExpectedRevision,
    );
    return { revisions, position: this.head() };
  }

  /** The PostgreSQL adapter's `findAppended`: the earlier result, or the ids that collide. */
  private appendedBefore(stream: string, ids: string[], found: string[]): AppendResult {
    const rows = found
      .map((id) => this.byId.get(id)!)
      .sort((a, b) => comparePositions(a.position, b.position));
    if (found.length !== ids.length || rows.some((r) => r.stream !== stream)) {
      throw new IdempotencyConflictError(
        stream,
        rows.map((r) => r.id),
      );
    }
    const last = rows.at(-1)!;
    return { nextExpectedRevision: last.revision, position: last.position };
  }
}

/** `append_events`' check: an exact revision needs the stream to exist at it (-1 never matches). */
function expectationHolds(expected: ExpectedRevision, actual: bigint): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return actual < 0n;
    case 'exists':
      return actual >= 0n;
    default:
      return actual >= 0n && actual === expected;
  }
}

/** A stored event as a reader gets it, before the registry decodes it. */
export const recordedOf = (event: StoredEvent): RecordedEvent => ({
  id: event.id,
  stream: event.stream,
  revision: event.revision,
  position: event.position,
  type: event.type,
  data: JSON.parse(event.data),
  metadata: JSON.parse(event.metadata),
  recordedAt: new Date(event.recordedAt),
});
