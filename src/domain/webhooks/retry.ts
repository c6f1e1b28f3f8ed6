/**
 * When a failed message is tried again, by the schedule the configuration holds (WEBHOOK_RETRY_SCHEDULE,
 * by default the Standard Webhooks schedule: src/config.ts), each step jittered.
 */

/** Up to this fraction later than the schedule says, so that receivers coming back are not stampeded. */
export const JITTER = 0.1;

/** A Retry-After longer than this is not honoured (the schedule's longest step). */
const MAX_RETRY_AFTER_S = 36_000;

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
