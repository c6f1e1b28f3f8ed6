import { conflictBackoff, type LoadedState, loadStates, type StreamLoad } from './command.ts';
import { WrongExpectedRevisionError } from './event-store/errors.ts';
import type { EventMetadata, EventStore, NewEvent, Position, StreamAppend } from './event-store/port.ts';
import type { DomainEvent } from './stream.ts';

/** The states of a list of stream loads, in its order. */
// biome-ignore lint/suspicious/noExplicitAny: a list of loads of different states and events
export type StatesOf<L extends readonly StreamLoad<any, any>[]> = {
  [K in keyof L]: L[K] extends StreamLoad<infer S, infer _E> ? S : never;
};

/**
 * One decision's events, per stream loaded (in the loads' order): events to append; `[]` for a stream
 * the decision read and does not write, whose revision must still hold when the others land (a
 * condition, on a stream that exists); `undefined` for one whose changes do not matter to it.
 */
export interface StreamsDecision<R> {
  parts: readonly ((DomainEvent & { id?: string })[] | undefined)[];
  result: R;
}

export interface MultiStreamCommand<
  // biome-ignore lint/suspicious/noExplicitAny: a list of loads of different states and events
  L extends readonly StreamLoad<any, any>[],
  R,
> {
  store: EventStore;
  loads: L;
  /** Pure: the states in, the events for each stream out (or it throws to refuse). */
  decide: (states: StatesOf<L>) => StreamsDecision<R>;
  metadata: EventMetadata;
  /** Decisions taken again on a concurrent write to one of the streams. */
  maxRetries?: number;
}

/**
 * A decision across several streams: their states loaded in one round trip, decided on, and its
 * events appended with the revisions read, all together (the store's `appendAtomically`: every part
 * lands or none does). On a concurrent write to any of them (a revision moved) it loads and decides
 * again. A store without atomic appends (EventStoreDB) takes the parts one at a time, in the order of
 * the loads, deciding again after each, so that each part is decided on states holding the ones before
 * it: a process dying between two parts leaves the first ones written, and the decision must say what
 * then (a run's start: commands/runs/start-run.ts). `position`: of the last event appended, if any.
 */
export async function decideAcrossStreams<
  // biome-ignore lint/suspicious/noExplicitAny: a list of loads of different states and events
  const L extends readonly StreamLoad<any, any>[],
  R,
>(command: MultiStreamCommand<L, R>): Promise<{ result: R; position?: Position }> {
  const { store, loads, metadata } = command;
  const retries = command.maxRetries ?? 20;
  let position: Position | undefined;
  // Without atomic appends each pass lands one part, so a decision takes a pass a part at most.
  let passes = 0;
  for (let conflicts = 0; ; ) {
    if (++passes > loads.length + retries + 1) {
      throw new Error(`a decision across ${loads.length} streams made no progress in ${passes - 1} passes`);
    }
    const loaded = (await loadStates(store, loads)) as readonly LoadedState<unknown>[];
    const { parts, result } = command.decide(loaded.map((l) => l.state) as StatesOf<L>);
    const appends = parts.flatMap((events, i): StreamAppend[] =>
      events === undefined
        ? []
        : [
            {
              stream: loads[i]!.stream,
              events: events.map((e): NewEvent => ({ ...e, metadata })),
              expectedRevision: loaded[i]!.revision ?? 'no_stream',
            },
          ],
    );
    const writes = appends.filter((a) => a.events.length > 0);
    if (writes.length === 0) return { result, position };
    try {
      if (store.appendAtomically) {
        return { result, position: (await store.appendAtomically(appends)).position };
      }
      const first = writes[0]!;
      const appended = await store.append(first.stream, first.events, {
        expectedRevision: first.expectedRevision,
      });
      // Answered as a repeat of an earlier append (ids written before): the next decision would be the
      // same one, for ever.
      const before = first.expectedRevision === 'no_stream' ? -1n : (first.expectedRevision as bigint);
      if (appended.nextExpectedRevision <= before) {
        throw new Error(`a decision's events for ${first.stream} were appended before: it would never end`);
      }
      position = appended.position;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || conflicts >= retries) throw error;
      await conflictBackoff(conflicts++);
    }
  }
}
