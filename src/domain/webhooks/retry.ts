/**
 * When a failed message is tried again. The specification's schedule: at once, then 5 s, 5 min,
 * 30 min, 2 h, 5 h, 10 h and 10 h after each failure; WEBHOOK_RETRY_SCHEDULE replaces it (seconds,
 * comma-separated, the first being the first attempt's delay, normally 0).
 */
export const DEFAULT_RETRY_SCHEDULE: readonly number[] = [0, 5, 300, 1800, 7200, 18000, 36000, 36000];

/** Up to this fraction later than the schedule says, so that receivers coming back are not stampeded. */
export const JITTER = 0.1;

/** A Retry-After longer than this is not honoured (the schedule's longest step). */
const MAX_RETRY_AFTER_S = 36_000;

/** The schedule from its text, or an error message (for the configuration). */
export function parseRetrySchedule(text: string): number[] | string {
  const parts = text.split(',').map((p) => p.trim());
  const seconds = parts.map(Number);
  if (parts.length === 0 || parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) {
    return 'expected comma-separated seconds, such as 0,5,300';
  }
  return seconds;
}

/**
 * After attempt `attempt` (1-based) failed: the time of the next one, or undefined when the schedule is
 * spent. `retryAfterS` (a 429's or 503's Retry-After) replaces the step when it is longer.
 */
export function nextAttemptAt(
  schedule: readonly number[],
  attempt: number,
  now: Date,
  retryAfterS?: number,
  random: () => number = Math.random,
): Date | undefined {
  const step = schedule[attempt];
  if (step === undefined) return undefined;
  const jittered = step * (1 + JITTER * random());
  const wait =
    retryAfterS !== undefined ? Math.max(jittered, Math.min(retryAfterS, MAX_RETRY_AFTER_S)) : jittered;
  return new Date(now.getTime() + Math.round(wait * 1000));
}

/** Retry-After in seconds: a number of seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | undefined, now: Date): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now.getTime()) / 1000);
}
