/**
 * TEST DOUBLE of EventStoreDB's storage: one in-memory transaction log ($all) and a per-stream index,
 * with the server's rules for expected revisions and idempotent retries. Never imported from src/.
 *
 * Positions imitate a single node on the v2 log format: each event is its own record, so its commit
 * and prepare positions are the same byte offset, and offsets grow by the record's size (not by 1),
 * so nothing downstream can get away with assuming consecutive numbers.
 */
import { EventEmitter } from 'node:events';

export interface LogPosition {
  commit: bigint;
  prepare: bigint;
}

export interface StoredEvent {
  id: string;
  stream: string;
  revision: bigint;
  position: LogPosition;
  type: string;
  contentType: string;
  data: Uint8Array;
  customMetadata: Uint8Array;
  /** .NET ticks (100 ns) since the Unix epoch, as the server stamps `created`. */
  createdTicks: bigint;
}

export interface ProposedEvent {
  id: string;
  type: string;
  contentType: string;
  data: Uint8Array;
  customMetadata: Uint8Array;
}

/** What the client sent as the expected revision. `revision` is exact; `no_stream` is exact at -1. */
export type Expected =
  | { kind: 'any' }
  | { kind: 'no_stream' }
  | { kind: 'stream_exists' }
  | { kind: 'revision'; revision: bigint };

export type AppendOutcome =
  | { ok: true; revision: bigint; position: LogPosition | undefined }
  | { ok: false; current: bigint | undefined };

const RECORD_OVERHEAD = 96n;
const TICKS_PER_MS = 10_000n;

export interface LogOptions {
  /** Older servers answer an idempotent retry without a position; this imitates them. */
  idempotentRetryWithoutPosition?: boolean;
}

export class TransactionLog {
  readonly all: StoredEvent[] = [];
  private readonly streams = new Map<string, StoredEvent[]>();
  private readonly appended = new EventEmitter();
  private nextOffset = 0n;

  constructor(private readonly options: LogOptions = {}) {
    this.appended.setMaxListeners(0);
  }

  /** The last revision of a stream, or undefined when it has no events. */
  currentRevision(stream: string): bigint | undefined {
    const events = this.streams.get(stream);
    return events && events.length > 0 ? BigInt(events.length - 1) : undefined;
  }

  readStream(stream: string): StoredEvent[] | undefined {
    return this.streams.get(stream);
  }

  append(stream: string, expected: Expected, proposed: ProposedEvent[]): AppendOutcome {
    const current = this.currentRevision(stream);
    const existing = this.streams.get(stream) ?? [];

    const retry = this.idempotentRetry(existing, expected, proposed);
    if (retry === 'corrupted') return { ok: false, current };
    if (retry) return retry;

    const currentNumber = current ?? -1n;
    if (expected.kind === 'no_stream' && current !== undefined) return { ok: false, current };
    if (expected.kind === 'stream_exists' && current === undefined) return { ok: false, current };
    if (expected.kind === 'revision' && expected.revision !== currentNumber) return { ok: false, current };

    if (proposed.length === 0) return { ok: true, revision: currentNumber, position: undefined };
    for (const p of proposed) this.write(stream, p);
    const last = this.all[this.all.length - 1]!;
    this.appended.emit('appended');
    return { ok: true, revision: last.revision, position: last.position };
  }

  /**
   * The server's idempotency check. Under an exact expected revision (no_stream counts as -1) it
   * compares the proposed ids with the events right after that revision: all equal is a retry of a
   * write that already happened, answered with the original outcome; the first equal but a later one
   * different is "corrupted" and answered as a wrong expected version. Under any / stream_exists the
   * real server only remembers recent event ids (best effort); the double remembers them all.
   */
  private idempotentRetry(
    existing: StoredEvent[],
    expected: Expected,
    proposed: ProposedEvent[],
  ): AppendOutcome | 'corrupted' | undefined {
    if (proposed.length === 0) return undefined;
    let start: number;
    if (expected.kind === 'any' || expected.kind === 'stream_exists') {
      start = existing.findIndex((e) => e.id === proposed[0]!.id);
      if (start < 0) return undefined;
    } else {
      start = expected.kind === 'no_stream' ? 0 : Number(expected.revision) + 1;
      if (start >= existing.length) return undefined;
    }
    for (let i = 0; i < proposed.length; i++) {
      if (existing[start + i]?.id !== proposed[i]!.id) return i === 0 ? undefined : 'corrupted';
    }
    const last = existing[start + proposed.length - 1]!;
    return {
      ok: true,
      revision: last.revision,
      position: this.options.idempotentRetryWithoutPosition ? undefined : last.position,
    };
  }

  private write(stream: string, p: ProposedEvent): void {
    const events = this.streams.get(stream) ?? [];
    const offset = this.nextOffset;
    this.nextOffset +=
      RECORD_OVERHEAD + BigInt(stream.length + p.type.length + p.data.length + p.customMetadata.length);
    const event: StoredEvent = {
      ...p,
      stream,
      revision: BigInt(events.length),
      position: { commit: offset, prepare: offset },
      createdTicks: BigInt(Date.now()) * TICKS_PER_MS,
    };
    events.push(event);
    this.streams.set(stream, events);
    this.all.push(event);
  }

  /** Index of the first event at or after `position` in $all (binary search: positions only grow). */
  indexAtOrAfter(position: LogPosition): number {
    let lo = 0;
    let hi = this.all.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compare(this.all[mid]!.position, position) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Calls `listener` after every successful write until the returned function is called. */
  onAppended(listener: () => void): () => void {
    this.appended.on('appended', listener);
    return () => this.appended.off('appended', listener);
  }
}

export function compare(a: LogPosition, b: LogPosition): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}
