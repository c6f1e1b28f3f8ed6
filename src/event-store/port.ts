import type { Observable } from 'rxjs';

/**
 * A place in the global log. Both adapters speak the same pair: EventStoreDB's (commit, prepare)
 * positions, and for PostgreSQL (writing transaction id, global position), the order that is safe
 * to read without skipping late commits. Positions compare lexicographically.
 */
export interface Position {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export const START: Position = Object.freeze({ commit: -1n, prepare: -1n });

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export type ExpectedRevision = 'no_stream' | 'exists' | 'any' | bigint;

export interface EventMetadata {
  correlationId?: string;
  causationId?: string;
  actor?: string;
  schemaVersion?: number;
  [key: string]: unknown;
}

/** What a command hands to `append`. `id` is optional; a retried request re-sends the same ids. */
export interface NewEvent<T extends string = string, D = unknown> {
  id?: string;
  type: T;
  data: D;
  metadata?: EventMetadata;
}

export interface RecordedEvent<T extends string = string, D = unknown> {
  id: string;
  stream: string;
  revision: bigint;
  position: Position;
  type: T;
  data: D;
  metadata: EventMetadata;
  recordedAt: Date;
}

export interface AppendResult {
  /** Revision of the last event now in the stream: pass it as the next expected revision. */
  nextExpectedRevision: bigint;
  /** Position of the last event appended. */
  position: Position;
}

/** One stream's part of `appendToStreams`. */
export interface StreamAppend {
  stream: string;
  events: NewEvent[];
  expectedRevision?: ExpectedRevision;
}

/** How one stream's part of `appendToStreams` went: it landed, or it failed alone. */
export type StreamAppendOutcome = { ok: true; result: AppendResult } | { ok: false; error: Error };

/** What `appendAtomically` wrote: each part's revision after it (in the order given) and the commit's last position. */
export interface AtomicAppendResult {
  /** Per part: the revision of its stream's last event now (a condition's: the revision it checked). */
  revisions: bigint[];
  /** Position of the last event appended. */
  position: Position;
}

export interface ReadStreamOptions {
  /** Inclusive revision to start from (the end when reading backwards). */
  from?: bigint;
  direction?: 'forwards' | 'backwards';
  limit?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. */
  from?: Position;
  limit?: number;
  /**
   * Only events of these types, where the adapter can filter on its side (a rebuild reads only what
   * its projection applies). An adapter may ignore it and return other types too: callers filter again.
   */
  types?: readonly string[];
}

export interface EventStore {
  /** `memory`: src/event-store/memory.ts, for specs that need no database. */
  readonly kind: 'postgres' | 'eventstoredb' | 'memory';
  append(
    stream: string,
    events: NewEvent[],
    options?: { expectedRevision?: ExpectedRevision },
  ): Promise<AppendResult>;
  /**
   * Independent appends to several streams in one call, outcomes in the order given. Each is checked
   * against its own expected revision and fails alone: the others still land. The PostgreSQL adapter
   * commits them in one statement and one transaction; EventStoreDB appends them one by one. Nothing
   * is promised across streams beyond that.
   */
  appendToStreams(appends: readonly StreamAppend[]): Promise<StreamAppendOutcome[]>;
  /**
   * Appends to several streams as one (each stream named once): every part is checked against its own
   * expected revision and either all land, under one commit, or none does. A part with no events only
   * checks its stream's revision: a condition on a stream the decision read and does not write. Fails
   * with WrongExpectedRevisionError naming a part that did not hold (the caller reads again and decides
   * again: a re-sent append fails so too, and its decider sees its own earlier write), or with
   * IdempotencyConflictError when an event id was written before.
   * Absent where the store cannot: EventStoreDB's client (@eventstore/db-client 6) has no multi-stream
   * append (KurrentDB 25.1 serves one, through its successor client only), so callers keep a path of
   * single appends for it (commands/runs/start-run.ts).
   */
  appendAtomically?(appends: readonly StreamAppend[]): Promise<AtomicAppendResult>;
  /**
   * Where the events are in the read models' own PostgreSQL (the PostgreSQL adapter): a SELECT of
   * `(event_id uuid, data jsonb)` for the events whose ids are in the uuid[] parameter `ids` names, for
   * a projection that copies event data into its tables within its own statement rather than through
   * this process (the rows read model's insert batches). Absent where the events live elsewhere
   * (EventStoreDB, memory): such a projection applies the events it was handed.
   */
  readonly eventDataSql?: (ids: string) => string;
  /** Oldest first by default. A stream that does not exist reads as empty. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /**
   * Several streams at once (each named once), each from its own revision (inclusive; the start when
   * not given), oldest first: what `readStream` gives each, in one round trip where the store can.
   * Every stream named is in the map, one without events (or none from there) with an empty list.
   */
  readStreams(reads: readonly { stream: string; from?: bigint }[]): Promise<Map<string, RecordedEvent[]>>;
  /** The last event of each named stream that has one (streams without events are left out). */
  readLastEvents(streams: readonly string[]): Promise<Map<string, RecordedEvent>>;
  /** Events of every stream in global order, strictly after `from`; system events excluded. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Catches up from `from` (exclusive) and then follows new events live, until unsubscribed. */
  subscribeAll(from?: Position): Observable<RecordedEvent>;
  /** Position of the newest event in the log, or START when it is empty. */
  head(): Promise<Position>;
  /** Cheap reachability check for /readyz. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
