import { z } from 'zod';
import { features } from '../../app/modules.ts';
import { compose } from '../../src/feature.ts';
import { defineStream } from '../../src/stream.ts';
import { BENCH_EVENT_TYPE } from './bench-event.ts';

/** The event store benchmark's own event, in streams of its own. */
export const benchStream = defineStream({
  category: 'bench',
  id: (id: string) => id,
  events: {
    [BENCH_EVENT_TYPE]: z.object({
      writer: z.number().int(),
      seq: z.number().int(),
      title: z.string(),
      body: z.string(),
      tags: z.array(z.string()),
    }),
  },
  initialState: () => 0,
  evolve: (count) => count + 1,
});

/** The benchmarks' registry: the service's features and the benchmark's stream. */
export const benchRegistry = compose(features, [benchStream]).registry;
