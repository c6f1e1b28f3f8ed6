import type { EventStore, RecordedEvent, StreamAppend, StreamAppendOutcome } from './port.ts';

/**
 * `appendToStreams` as one `append` per stream, all under way at once: for a store with no batch of its
 * own (EventStoreDB), and for the PostgreSQL adapter when its one-statement batch cannot answer.
 */
export function appendEach(
  store: Pick<EventStore, 'append'>,
  appends: readonly StreamAppend[],
): Promise<StreamAppendOutcome[]> {
  return Promise.all(
    appends.map((a) =>
      store.append(a.stream, a.events, { expectedRevision: a.expectedRevision }).then(
        (result): StreamAppendOutcome => ({ ok: true, result }),
        (error: unknown): StreamAppendOutcome => ({
          ok: false,
          error: error instanceof Error ? error : new Error(String(error)),
        }),
      ),
    ),
  );
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
