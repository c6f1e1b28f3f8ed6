import { z } from 'zod';
import { features } from '../../app/modules.ts';
import { compose } from '../../src/feature.ts';
import { defineStream } from '../../src/stream.ts';

/**
 * Streams that exist only in tests: the event types of the kernel's own suites (the store contract,
 * the test projections, the operations notes, the batch counter). They join the service's features in
 * the tests' registry, as a feature's streams join it in the service.
 */
const lastEventIsState = <S>() => ({ initialState: (): S | undefined => undefined });

/** The event store contract's events. */
export const contractStream = defineStream({
  category: 'contract',
  id: (id: string) => id,
  events: { ContractTested: z.object({ n: z.number().int(), note: z.string().optional() }) },
  ...lastEventIsState<number>(),
  evolve: (_state, event) => event.data.n,
});

/** The test projection's counted and ignored events (test/support/test-projections.ts). */
export const counterTestStream = defineStream({
  category: 'testcounter',
  id: (id: string) => id,
  events: {
    TestCounterBumped: z.object({ by: z.number().int() }),
    TestNoiseHappened: z.object({ note: z.string() }),
  },
  initialState: () => 0,
  evolve: (total, event) => (event.type === 'TestCounterBumped' ? total + event.data.by : total),
});

/** The operations tests' notes (test/support/rebuild-fixtures.ts). */
export const notesStream = defineStream({
  category: 'opsnote',
  id: (id: string) => id,
  events: {
    OpsTestNoteWritten: z.object({
      noteId: z.string(),
      author: z.string(),
      text: z.string(),
      poison: z.boolean().optional(),
    }),
    OpsTestNoteDeleted: z.object({ noteId: z.string() }),
  },
  initialState: () => ({ exists: false }),
  evolve: (_state, event) => ({ exists: event.type === 'OpsTestNoteWritten' }),
});

/** A stream whose last event is its state, for handleCommandBatch. */
export const counterSetStream = defineStream({
  category: 'counter',
  id: (id: string) => id,
  events: { CounterSet: z.object({ value: z.number().int() }) },
  initialState: (): { value?: number } => ({}),
  evolve: (_state, event) => ({ value: event.data.value }),
});

export const testStreams = [contractStream, counterTestStream, notesStream, counterSetStream];

/** The tests' registry: every feature of the service plus the test-only streams. */
export const testRegistry = compose(features, testStreams).registry;
