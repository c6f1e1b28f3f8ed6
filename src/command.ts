import { WrongExpectedRevisionError } from './event-store/errors.ts';
import type {
  AppendResult,
  EventMetadata,
  EventStore,
  ExpectedRevision,
  NewEvent,
  RecordedEvent,
} from './event-store/port.ts';
import type { Decider, DomainEvent, StreamDefinition } from './stream.ts';

export interface CommandOptions<S, C, E extends DomainEvent> {
  store: EventStore;
  stream: string;
  decider: Decider<S, C, E>;
  command: C;
  metadata: EventMetadata;
  now: Date;
  /** Strict control (If-Match): the revision the caller last saw; no retry on conflict then. */
  expectedRevision?: bigint | 'no_stream';
  /**
   * The state the stream's events fold onto, when it does not start from the definition's initial
   * state (a row's own stream starts from the row as its insert batch left it).
   */
  initialState?: S;
  /** Optimistic retries on a concurrent write to the same stream. */
  maxRetries?: number;
  /** The stream's state, loaded already (alongside another read): the first attempt decides on it. */
  loaded?: { state: S; revision: bigint | undefined };
}

export interface CommandResult<S, E> {
  events: E[];
  state: S;
  /** Undefined when the decider produced no events (nothing changed). */
  appended?: AppendResult;
  revision: bigint | undefined;
}

type Folding<S, E extends DomainEvent> = Pick<StreamDefinition<S, E>, 'initialState' | 'evolve'>;

/** One stream to load, and the definition that folds it. */
export interface StreamLoad<S, E extends DomainEvent = DomainEvent> {
  stream: string;
  definition: Folding<S, E>;
}

export interface LoadedState<S> {
  state: S;
  /** Undefined: no stream yet. */
  revision: bigint | undefined;
}

interface Folded {
  definition: object;
  state: unknown;
  revision: bigint;
}

/** Streams whose folded state a store keeps; the least recently loaded go first. */
const FOLDED_STREAMS = 5000;

/**
 * The folded state of recently loaded streams, per store (a test process holds many stores whose
 * stream names repeat). A stream's events never change once written, so a later load reads only the
 * events after the revision kept, usually none: a PATCH of a column of a 50-column table used to
 * read and decode the table's 51 events and every event of the column's history on every call.
 * States are values (evolve returns a new one and nobody changes them), so sharing them is safe.
 */
const foldedStates = new WeakMap<EventStore, Map<string, Folded>>();

/**
 * Loads the stream's state, folded onto `initial` when given (a row's stream continues the state its
 * insert batch gave it): such a fold depends on the caller's starting point, so it is not kept.
 */
export async function loadState<S, E extends DomainEvent>(
  store: EventStore,
  stream: string,
  definition: Folding<S, E>,
  initial?: S,
): Promise<LoadedState<S>> {
  if (initial !== undefined) return fold(definition, await store.readStream(stream), { state: initial });
  const [loaded] = await loadStates(store, [{ stream, definition }] as const);
  return loaded;
}

/** Loads the states of several streams (each named once), reading all of them in one round trip. */
export async function loadStates<
  // biome-ignore lint/suspicious/noExplicitAny: a list of loads of different states and events
  const L extends readonly StreamLoad<any, any>[],
>(
  store: EventStore,
  loads: L,
): Promise<{ [K in keyof L]: L[K] extends StreamLoad<infer S, infer _E> ? LoadedState<S> : never }> {
  const kept = foldedStates.get(store) ?? new Map<string, Folded>();
  foldedStates.set(store, kept);
  const bases = loads.map(({ stream, definition }) => {
    const known = kept.get(stream);
    return known?.definition === definition ? known : undefined;
  });
  const reads = loads.map(({ stream }, i) => ({ stream, from: nextRevision(bases[i]) }));
  const read =
    reads.length === 1
      ? new Map([[reads[0]!.stream, await store.readStream(reads[0]!.stream, { from: reads[0]!.from })]])
      : await store.readStreams(reads);
  const loaded = await Promise.all(
    loads.map(async ({ stream, definition }, i) => {
      const base = bases[i];
      const events = read.get(stream) ?? [];
      // A fresh read if the store does not follow on from the revision kept (it always should).
      const follows = !base || events.length === 0 || events[0]!.revision === base.revision + 1n;
      const state = follows
        ? fold(definition, events, base && { state: base.state, revision: base.revision })
        : fold(definition, await store.readStream(stream));
      keep(kept, stream, definition, state);
      return state;
    }),
  );
  return loaded as { [K in keyof L]: L[K] extends StreamLoad<infer S, infer _E> ? LoadedState<S> : never };
}

const nextRevision = (base: Folded | undefined) => (base ? base.revision + 1n : undefined);

function keep(kept: Map<string, Folded>, stream: string, definition: object, loaded: LoadedState<unknown>) {
  if (loaded.revision === undefined) return;
  const latest = kept.get(stream);
  // Concurrent loads may finish out of order: keep the newer fold.
  if (latest && latest.definition === definition && latest.revision > loaded.revision) return;
  kept.delete(stream);
  kept.set(stream, { definition, state: loaded.state, revision: loaded.revision });
  if (kept.size > FOLDED_STREAMS) kept.delete(kept.keys().next().value!);
}

export function fold<S, E extends DomainEvent>(
  definition: Folding<S, E>,
  events: readonly RecordedEvent[],
  from?: { state: S; revision?: bigint },
): LoadedState<S> {
  const initial = from ? from.state : definition.initialState();
  const state = events.reduce((s, e) => definition.evolve(s, e as unknown as E), initial);
  return { state, revision: events.at(-1)?.revision ?? from?.revision };
}

/** Decides on the state read and says what to append (nothing when the decider produced no events). */
export function decideOn<S, C, E extends DomainEvent>(
  decider: Decider<S, C, E>,
  command: C,
  loaded: { state: S; revision: bigint | undefined },
  now: Date,
  metadata: EventMetadata,
): { events: E[]; state: S; expected: ExpectedRevision; append: NewEvent[] } {
  const events = decider.decide(command, loaded.state, now);
  return {
    events,
    state: events.reduce(decider.stream.evolve, loaded.state),
    expected: loaded.revision === undefined ? 'no_stream' : loaded.revision,
    append: events.map((e): NewEvent => ({ type: e.type, data: e.data, metadata })),
  };
}

/**
 * Back off a little, more each time up to 30 ms, so that a crowd of writers spreads out. Capped so that
 * a writer out of retries (100 for a PATCH) hears so in about a second and a half, not ten or more.
 */
export const conflictBackoff = (attempt: number) =>
  new Promise((r) => setTimeout(r, Math.random() * 5 * Math.min(attempt + 1, 6)));

/** Commands of this process on one stream, per store: each waits for the one before (see below). */
const streamTurns = new WeakMap<EventStore, Map<string, Promise<void>>>();

/**
 * Runs `fn` once the commands of this process on the same stream that came before it are done: a crowd
 * of writers of one stream in one process (a PATCH storm on a column) takes turns instead of racing,
 * failing on the revision and reading again, which cost a round trip or two per loser and per round.
 * Other processes still race; the revision check decides between them. `waited`: another went first,
 * so a state read before the turn is stale.
 */
async function inTurn<T>(store: EventStore, stream: string, fn: (waited: boolean) => Promise<T>): Promise<T> {
  const turns = streamTurns.get(store) ?? new Map<string, Promise<void>>();
  streamTurns.set(store, turns);
  const before = turns.get(stream);
  let done!: () => void;
  const mine = new Promise<void>((resolve) => {
    done = resolve;
  });
  const last = before ? before.then(() => mine) : mine;
  turns.set(stream, last);
  try {
    if (before) await before;
    return await fn(before !== undefined);
  } finally {
    done();
    if (turns.get(stream) === last) turns.delete(stream);
  }
}

/**
 * Read, decide, append with the revision read; on a concurrent write, read again and decide again
 * (the decider sees the other write, so both changes land or the decider refuses). Commands of this
 * process on one stream take turns (`inTurn`).
 */
export async function handleCommand<S, C, E extends DomainEvent>(
  options: CommandOptions<S, C, E>,
): Promise<CommandResult<S, E>> {
  const { store, stream, decider, command, metadata, now } = options;
  const retries = options.expectedRevision !== undefined ? 0 : (options.maxRetries ?? 20);
  return inTurn(store, stream, async (waited) => {
    for (let attempt = 0; ; attempt++) {
      const { state, revision } =
        attempt === 0 && options.loaded && !waited
          ? options.loaded
          : await loadState(store, stream, decider.stream, options.initialState);
      if (options.expectedRevision !== undefined && (revision ?? 'no_stream') !== options.expectedRevision) {
        throw new WrongExpectedRevisionError(stream, options.expectedRevision, revision ?? 'no_stream');
      }
      const decided = decideOn(decider, command, { state, revision }, now, metadata);
      if (decided.events.length === 0) return { events: decided.events, state: decided.state, revision };
      try {
        const appended = await store.append(stream, decided.append, { expectedRevision: decided.expected });
        return {
          events: decided.events,
          state: decided.state,
          appended,
          revision: appended.nextExpectedRevision,
        };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= retries) throw error;
        await conflictBackoff(attempt);
      }
    }
  });
}
