import { WrongExpectedRevisionError } from './event-store/errors.ts';
import type {
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
} from './event-store/port.ts';

/** An event as a decider sees it: its type and data. */
export interface DomainEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
}

/**
 * A pure decider: no I/O, the clock comes in as an argument. `decide` throws an AppError to refuse.
 */
export interface Decider<S, C, E extends DomainEvent> {
  initialState: () => S;
  evolve: (state: S, event: E) => S;
  decide: (command: C, state: S, now: Date) => E[];
}

export interface CommandOptions<S, C, E extends DomainEvent> {
  store: EventStore;
  stream: string;
  decider: Decider<S, C, E>;
  command: C;
  metadata: EventMetadata;
  now: Date;
  /** Strict control (If-Match): the revision the caller last saw; no retry on conflict then. */
  expectedRevision?: bigint;
  /** Optimistic retries on a concurrent write to the same stream. */
  maxRetries?: number;
  /** The stream's last event holds its whole state (e.g. an article): read only that one. */
  stateInLastEvent?: boolean;
}

export interface CommandResult<S, E> {
  events: E[];
  state: S;
  /** Undefined when the decider produced no events (nothing changed). */
  appended?: AppendResult;
  revision: bigint | undefined;
}

/** Loads the stream's state (undefined revision: no stream yet). */
export async function loadState<S, E extends DomainEvent>(
  store: EventStore,
  stream: string,
  decider: Pick<Decider<S, unknown, E>, 'initialState' | 'evolve'>,
  stateInLastEvent = false,
): Promise<{ state: S; revision: bigint | undefined }> {
  // Reading only the last event keeps a long-lived stream (an article re-synced every hour) cheap.
  const events = stateInLastEvent
    ? await store.readStream(stream, { direction: 'backwards', limit: 1 })
    : await store.readStream(stream);
  const state = events.reduce((s, e) => decider.evolve(s, e as unknown as E), decider.initialState());
  return { state, revision: events.at(-1)?.revision };
}

/**
 * Read, decide, append with the revision read; on a concurrent write, read again and decide again
 * (the decider sees the other write, so both changes land or the decider refuses).
 */
export async function handleCommand<S, C, E extends DomainEvent>(
  options: CommandOptions<S, C, E>,
): Promise<CommandResult<S, E>> {
  const { store, stream, decider, command, metadata, now } = options;
  const retries = options.expectedRevision !== undefined ? 0 : (options.maxRetries ?? 20);
  for (let attempt = 0; ; attempt++) {
    const { state, revision } = await loadState(store, stream, decider, options.stateInLastEvent);
    if (options.expectedRevision !== undefined && revision !== options.expectedRevision) {
      throw new WrongExpectedRevisionError(stream, options.expectedRevision, revision ?? 'no_stream');
    }
    const events = decider.decide(command, state, now);
    const next = events.reduce(decider.evolve, state);
    if (events.length === 0) return { events, state: next, revision };
    const expected: ExpectedRevision = revision === undefined ? 'no_stream' : revision;
    try {
      const appended = await store.append(
        stream,
        events.map((e): NewEvent => ({ type: e.type, data: e.data, metadata })),
        { expectedRevision: expected },
      );
      return { events, state: next, appended, revision: appended.nextExpectedRevision };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= retries) throw error;
      // Back off a little, more each time, so that a crowd of writers spreads out.
      await new Promise((r) => setTimeout(r, Math.random() * 5 * (attempt + 1)));
    }
  }
}
