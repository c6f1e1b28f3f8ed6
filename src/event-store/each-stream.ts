import { asError } from '../errors.ts';
import { groupBy } from '../group-by.ts';
import type { EventStore, RecordedEvent, StreamAppend, StreamAppendOutcome } from './port.ts';

/**
 * `appendToStreams` as one `append` per part: for a store with no batch of its own (EventStoreDB), and
 * for the PostgreSQL adapter when its one-statement batch cannot answer. Streams go concurrently; the
 * parts of one stream go one after the other, in the order given.
 */
export async function appendEach(
  store: Pick<EventStore, 'append'>,
  appends: readonly StreamAppend[],
): Promise<StreamAppendOutcome[]> {
  const outcomes: StreamAppendOutcome[] = new Array(appends.length);
  const byStream = groupBy(appends.keys(), (i) => appends[i]!.stream);
  await Promise.all(
    [...byStream.values()].map(async (indices) => {
      for (const i of indices) {
        const a = appends[i]!;
        try {
          const result = await store.append(a.stream, a.events, { expectedRevision: a.expectedRevision });
          outcomes[i] = { ok: true, result };
        } catch (error) {
          outcomes[i] = { ok: false, error: asError(error) };
        }
      }
    }),
  );
  return outcomes;
}

/** `readLastEvents` as one backwards read of a single event per stream, all under way at once. */
export async function readLastEach(
  store: Pick<EventStore, 'readStream'>,
  streams: readonly string[],
): Promise<Map<string, RecordedEvent>> {
  const unique = [...new Set(streams)];
  const lasts = await Promise.all(
    unique.map((s) => store.readStream(s, { direction: 'backwards', limit: 1 })),
  );
  const out = new Map<string, RecordedEvent>();
  unique.forEach((stream, i) => {
    const last = lasts[i]![0];
    if (last) out.set(stream, last);
  });
  return out;
}

/** `readStreams` as one `readStream` per stream, all under way at once. */
export async function readEach(
  store: Pick<EventStore, 'readStream'>,
  reads: readonly { stream: string; from?: bigint }[],
): Promise<Map<string, RecordedEvent[]>> {
  const events = await Promise.all(reads.map((r) => store.readStream(r.stream, { from: r.from })));
  return new Map(reads.map((r, i) => [r.stream, events[i]!]));
}
