import type { EventStore, RecordedEvent } from '../event-store/port.ts';
import { categoryOf } from '../streams.ts';
import { type StateReplayer, stateReplayers } from './state-replayers.ts';

export class NoReplayerError extends Error {
  constructor(readonly category: string) {
    super(
      `no state replayer for streams of category "${category}" (known: ${stateReplayers.categories().join(', ') || 'none'})`,
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

/** Folds events with the replayer; the events must be of one stream, oldest first. */
export function replayUntil(events: readonly RecordedEvent[], at: Date, replayer: StateReplayer) {
  let state = replayer.initialState();
  let last: RecordedEvent | undefined;
  for (const event of events) {
    // Appends to one stream are serialised, so its recorded times rise with its revisions.
    if (event.recordedAt.getTime() > at.getTime()) break;
    state = replayer.evolve(state, event);
    last = event;
  }
  return { state, last };
}

/** The state of a stream (an article, a column) as it was at `at`, by replaying its events up to then. */
export async function stateAt(store: EventStore, stream: string, at: Date): Promise<StateAt> {
  const replayer = stateReplayers.get(categoryOf(stream));
  if (!replayer) throw new NoReplayerError(categoryOf(stream));
  const events = await store.readStream(stream);
  const { state, last } = replayUntil(events, at, replayer);
  const replayed = last ? events.indexOf(last) + 1 : 0;
  return {
    stream,
    at,
    revision: last?.revision ?? null,
    recordedAt: last?.recordedAt ?? null,
    eventsReplayed: replayed,
    eventsAfter: events.length - replayed,
    state: last ? (replayer.view ? replayer.view(state) : state) : null,
  };
}
