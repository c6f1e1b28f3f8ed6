import type { StreamAppend } from './port.ts';

/**
 * The parts of an `appendAtomically`, checked as every adapter takes them: at least one, each stream
 * named once (two parts of one stream would each be checked against the revision before either).
 */
export function atomicParts(appends: readonly StreamAppend[]): readonly StreamAppend[] {
  if (appends.length === 0) throw new Error('appendAtomically needs at least one part');
  const streams = new Set(appends.map((a) => a.stream));
  if (streams.size !== appends.length) throw new Error('appendAtomically names each stream once');
  return appends;
}
