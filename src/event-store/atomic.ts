import type { StreamAppend } from './port.ts';

/**
 * The parts of an `appendAtomically`, checked as every adapter takes them: at least one, each stream
 * named once (two parts of one stream would each be checked against the revision before either), and a
 * condition (a part without events) only on a stream that exists: PostgreSQL holds a condition by
 * locking its stream's row, and a stream not there yet has none to lock.
 */
export function atomicParts(appends: readonly StreamAppend[]): readonly StreamAppend[] {
  if (appends.length === 0) throw new Error('appendAtomically needs at least one part');
  const streams = new Set(appends.map((a) => a.stream));
  if (streams.size !== appends.length) throw new Error('appendAtomically names each stream once');
  for (const { stream, events, expectedRevision } of appends) {
    if (events.length === 0 && (expectedRevision === 'no_stream' || expectedRevision === undefined))
      throw new Error(
        `appendAtomically: a condition on ${stream} needs it to exist (a revision or 'exists')`,
      );
  }
  return appends;
}
