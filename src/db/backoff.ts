/** Reconnect and restart delays after a lost database: 100 ms, doubling, at most 5 s. */
export const BACKOFF_MIN_MS = 100;
export const BACKOFF_MAX_MS = 5_000;

/** The pause before retry number `attempt` (0 for the first). */
export const backoffMs = (attempt: number): number =>
  Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(attempt, 16));
