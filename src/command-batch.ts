import { type CommandResult, conflictBackoff, decideOn, fold, loadState } from './command.ts';
import { asError } from './errors.ts';
import { WrongExpectedRevisionError } from './event-store/errors.ts';
import type { EventMetadata, EventStore, RecordedEvent } from './event-store/port.ts';
import type { Decider, DomainEvent, StreamDefinition } from './stream.ts';

/* Commands on many streams at once (an import's rows, a sync's articles): see handleCommandBatch. */

export interface BatchCommandOptions<S, C, E extends DomainEvent> {
  store: EventStore;
  decider: Decider<S, C, E>;
  /**
   * The commands and their streams; a stream named twice is decided again after the first lands.
   * `initial`: the state the stream's events fold onto (see CommandOptions.initialState).
   */
  items: readonly { stream: string; command: C; metadata: EventMetadata; now: Date; initial?: S }[];
  maxRetries?: number;
  /**
   * How each stream's state is read: `last`, its last event (the default: deciders whose state is that
   * event); `all`, every event, read a few streams at a time.
   */
  read?: 'last' | 'all';
}

export type BatchCommandOutcome<S, E> =
  | { ok: true; result: CommandResult<S, E> }
  | { ok: false; error: unknown };

/**
 * `handleCommand` for many streams at once: one read of the streams (by default only each one's last
 * event, for deciders whose state it is: an article re-synced every hour stays cheap), one
 * `appendToStreams`; the commands whose stream was written in between are read and decided again, the
 * others are done. Outcomes in item order; a refusal or a failure is that item's outcome alone. A whole
 * call failing (the store unreachable) rejects.
 */
export async function handleCommandBatch<S, C, E extends DomainEvent>(
  options: BatchCommandOptions<S, C, E>,
): Promise<BatchCommandOutcome<S, E>[]> {
  const { store, decider, items } = options;
  const retries = options.maxRetries ?? 20;
  const outcomes: BatchCommandOutcome<S, E>[] = new Array(items.length);
  const conflicts = new Array<number>(items.length).fill(0);
  let pending = items.map((_, i) => i);
  const read = options.read ?? 'last';
  while (pending.length > 0) {
    // One decision per stream a round: a stream named again is decided on what the first one left.
    const round: number[] = [];
    const later: number[] = [];
    const named = new Set<string>();
    for (const index of pending) {
      const { stream } = items[index]!;
      (named.has(stream) ? later : round).push(index);
      named.add(stream);
    }
    const states = await readStates(
      store,
      decider.stream,
      new Map(round.map((i) => [items[i]!.stream, items[i]!.initial])),
      read,
    );
    const toAppend: { index: number; decided: ReturnType<typeof decideOn<S, C, E>> }[] = [];
    for (const index of round) {
      const { stream, command, metadata, now } = items[index]!;
      const loaded = states.get(stream)!;
      try {
        if (loaded instanceof Error) throw loaded;
        const decided = decideOn(decider, command, loaded, now, metadata);
        if (decided.events.length > 0) toAppend.push({ index, decided });
        else {
          outcomes[index] = {
            ok: true,
            result: { events: [], state: decided.state, revision: loaded.revision },
          };
        }
      } catch (error) {
        outcomes[index] = { ok: false, error };
      }
    }
    const appended = await store.appendToStreams(
      toAppend.map(({ index, decided }) => ({
        stream: items[index]!.stream,
        events: decided.append,
        expectedRevision: decided.expected,
      })),
    );
    const conflicted: number[] = [];
    appended.forEach((outcome, k) => {
      const { index, decided } = toAppend[k]!;
      if (outcome.ok) {
        const { events, state } = decided;
        const revision = outcome.result.nextExpectedRevision;
        outcomes[index] = { ok: true, result: { events, state, appended: outcome.result, revision } };
      } else if (outcome.error instanceof WrongExpectedRevisionError && conflicts[index]! < retries) {
        conflicts[index]!++;
        conflicted.push(index);
      } else {
        outcomes[index] = { ok: false, error: outcome.error };
      }
    });
    if (conflicted.length > 0) await conflictBackoff(Math.max(...conflicted.map((i) => conflicts[i]!)) - 1);
    pending = [...conflicted, ...later].sort((a, b) => a - b);
  }
  return outcomes;
}

/** Streams read whole at once by a batch: enough to keep the pool busy, not to take all of it. */
const WHOLE_READS_AT_ONCE = 8;

/** Each stream's state as `read` says; a stream that cannot be read is that stream's failure alone. */
async function readStates<S, E extends DomainEvent>(
  store: EventStore,
  definition: Pick<StreamDefinition<S, E>, 'initialState' | 'evolve'>,
  initials: ReadonlyMap<string, S | undefined>,
  read: 'last' | 'all',
): Promise<Map<string, { state: S; revision: bigint | undefined } | Error>> {
  const streams = [...initials.keys()];
  const states = new Map<string, { state: S; revision: bigint | undefined } | Error>();
  if (read === 'last') {
    for (const [s, last] of await readLastIsolated(store, streams)) {
      const initial = initials.get(s);
      states.set(
        s,
        last instanceof Error
          ? last
          : fold(definition, last ? [last] : [], initial === undefined ? undefined : { state: initial }),
      );
    }
  } else {
    let next = 0;
    const worker = async () => {
      while (next < streams.length) {
        const s = streams[next++]!;
        states.set(s, await loadState(store, s, definition, initials.get(s)).catch(asError));
      }
    };
    await Promise.all(Array.from({ length: Math.min(WHOLE_READS_AT_ONCE, streams.length) }, worker));
  }
  return states;
}

/**
 * The last event of each stream in one read; when that read fails (one stream's last event no longer
 * decodes, say), each stream is read alone, so that the failure is that stream's outcome only.
 */
async function readLastIsolated(
  store: EventStore,
  streams: readonly string[],
): Promise<Map<string, RecordedEvent | Error | undefined>> {
  try {
    const lasts = await store.readLastEvents(streams);
    return new Map(streams.map((s) => [s, lasts.get(s)]));
  } catch (error) {
    if (streams.length <= 1) return new Map(streams.map((s) => [s, asError(error)]));
    const each = await Promise.all(
      streams.map((s) =>
        store.readLastEvents([s]).then(
          (lasts) => lasts.get(s),
          (e: unknown) => asError(e),
        ),
      ),
    );
    return new Map(streams.map((s, i) => [s, each[i]]));
  }
}
