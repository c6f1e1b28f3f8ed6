import type { EventStore, RecordedEvent } from '../event-store/port.ts';
import type { EventRegistry } from '../event-store/registry.ts';
import { type AnyStreamDefinition, categoryOf } from '../stream.ts';

export class NoReplayerError extends Error {
  constructor(
    readonly category: string,
    known: readonly string[],
  ) {
    super(
      `no stream definition for streams of category "${category}" (known: ${known.join(', ') || 'none'})`,
    );
  }
}

export interface StateAt {
  stream: string;
  at: Date;
  /** Null when the stream had no event yet at `at`. */
  revision: bigint | null;
  recordedAt: Date | null;
  eventsReplayed: number;
  /** Events of the stream recorded after `at` (not replayed). */
  eventsAfter: number;
  state: unknown;
}

/** Folds events with the stream's own evolve; the events must be of one stream, oldest first. */
export function replayUntil(events: readonly RecordedEvent[], at: Date, definition: AnyStreamDefinition) {
  let state = definition.initialState();
  let last: RecordedEvent | undefined;
  for (const event of events) {
    // Appends to one stream are serialised, so its recorded times rise with its revisions.
    if (event.recordedAt.getTime() > at.getTime()) break;
    state = definition.evolve(state, event);
    last = event;
  }
  return { state, last };
}

/**
 * The state of a stream (an article, a column) as it was at `at`, by replaying its events up to then
 * with the evolve of its feature's stream definition: history shows what the command side saw.
 */
export async function stateAt(
  store: EventStore,
  registry: EventRegistry,
  stream: string,
  at: Date,
): Promise<StateAt> {
  const definition = registry.stream(categoryOf(stream));
  if (!definition) throw new NoReplayerError(categoryOf(stream), registry.categories());
  const events = await store.readStream(stream);
  const { state, last } = replayUntil(events, at, definition);
  const replayed = last ? events.indexOf(last) + 1 : 0;
  const view = definition.history?.view ?? ((s: unknown) => s);
  return {
    stream,
    at,
    revision: last?.revision ?? null,
    recordedAt: last?.recordedAt ?? null,
    eventsReplayed: replayed,
    eventsAfter: events.length - replayed,
    state: last ? view(state) : null,
  };
}

/**
 * The state of a stream as it was right after its event `revision`, by the same replay as `stateAt`:
 * the console's time travel by revision, and the two sides of a diff between revisions.
 */
export async function stateAtRevision(
  store: EventStore,
  registry: EventRegistry,
  stream: string,
  revision: bigint,
): Promise<StateAt> {
  const definition = registry.stream(categoryOf(stream));
  if (!definition) throw new NoReplayerError(categoryOf(stream), registry.categories());
  const events = await store.readStream(stream);
  let state = definition.initialState();
  let last: RecordedEvent | undefined;
  for (const event of events) {
    if (event.revision > revision) break;
    state = definition.evolve(state, event);
    last = event;
  }
  const replayed = last ? events.indexOf(last) + 1 : 0;
  const view = definition.history?.view ?? ((s: unknown) => s);
  return {
    stream,
    at: last?.recordedAt ?? new Date(0),
    revision: last?.revision ?? null,
    recordedAt: last?.recordedAt ?? null,
    eventsReplayed: replayed,
    eventsAfter: events.length - replayed,
    state: last ? view(state) : null,
  };
}
