/**
 * TEST DOUBLE of the server-side $all filter (ReadReq.Options.FilterOptions): on the event type or on
 * the stream name, by regular expression or by prefixes. The real server applies .NET regexes; the
 * expressions clients send (e.g. the client's `excludeSystemEvents()`, `^[^$].*`) mean the same in JS.
 */
import type { ReadReqMessage } from './grpc.ts';
import type { StoredEvent } from './log.ts';

export interface EventFilter {
  accepts(event: StoredEvent): boolean;
  /** Send a checkpoint after this many events considered (the window of 32 times the multiplier). */
  checkpointEvery: number;
}

const SEARCH_WINDOW = 32;

export function filterFromRequest(
  options: NonNullable<ReturnType<ReadReqMessage['getOptions']>>,
): EventFilter | undefined {
  if (!options.hasFilter()) return undefined;
  const filter = options.getFilter()!;
  const onType = filter.hasEventType();
  const expression = onType ? filter.getEventType() : filter.getStreamIdentifier();
  if (!expression) return undefined;
  const regex = expression.getRegex();
  const prefixes = expression.getPrefixList();
  const pattern = regex ? new RegExp(regex) : undefined;
  const test = pattern
    ? (value: string) => pattern.test(value)
    : (value: string) => prefixes.some((p) => value.startsWith(p));
  return {
    accepts: (event) => test(onType ? event.type : event.stream),
    checkpointEvery: Math.max(1, filter.getCheckpointintervalmultiplier()) * SEARCH_WINDOW,
  };
}
