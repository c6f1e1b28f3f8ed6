import * as assert from 'uvu/assert';
import { AppError } from '../../src/errors.ts';
import type { Decider, DomainEvent } from '../../src/stream.ts';
import { testRegistry } from './test-streams.ts';

export const NOW = new Date('2024-05-01T12:00:00.000Z');

/**
 * A decider spec: given events, when a command, then the events it decides or the refusal it throws.
 *
 *   given(decider, [created]).when(command).thenEvents([patched])
 *   given(decider, []).when(command).refuses('not_found')
 *
 * The events it decides must pass their registered schemas, as the store would check them on append:
 * a decider that makes an event the store refuses fails its spec, not only its API spec.
 */
export function given<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, events: E[]) {
  // The state a command decides on is the stream definition's own fold of its events.
  const state = events.reduce(decider.stream.evolve, decider.stream.initialState());
  return {
    when(command: C) {
      const run = (): { events?: E[]; error?: AppError } => {
        try {
          const decided = decider.decide(command, state, NOW);
          for (const event of decided) testRegistry.prepare(event);
          return { events: decided };
        } catch (error) {
          if (error instanceof AppError) return { error };
          throw error;
        }
      };
      return {
        /** Asserts the events decided and returns them, to be given to the next step. */
        thenEvents(expected: E[]): E[] {
          const { events, error } = run();
          assert.is(error, undefined, error && `refused: ${error.code} ${error.detail}`);
          assert.equal(events, expected);
          return events!;
        },
        /** The decided events, when a test looks at them more closely than equality. */
        events(): E[] {
          const { events, error } = run();
          assert.is(error, undefined, error && `refused: ${error.code} ${error.detail}`);
          return events!;
        },
        /** Asserts the refusal's code and returns it for a closer look. */
        refuses(code: string): AppError {
          const { events, error } = run();
          assert.ok(error, `expected ${code}, got events ${JSON.stringify(events)}`);
          assert.is(error.code, code, error.detail);
          return error;
        },
      };
    },
  };
}

/** The paths of a validation refusal, sorted. */
export const pathsOf = (error: AppError) =>
  ((error.extra.errors ?? []) as { path: string }[]).map((e) => e.path).sort();
