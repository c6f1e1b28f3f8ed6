/** Reconnect and restart delays after a lost database: 100 ms, doubling, at most 5 s. */
export const BACKOFF_MIN_MS = 100;
export const BACKOFF_MAX_MS = 5_000;

/** The pause before retry number `attempt` (0 for the first). */
export const backoffMs = (attempt: number): number =>
  Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** Math.min(attempt, 16));

/**
 * Runs `statement` until it answers, pausing `backoffMs` between tries (the database away, a
 * connection lost); `onError` hears each failure. Once `signal` is aborted a failure goes up.
 */
export async function retryUntilAborted<T>(
  signal: AbortSignal,
  onError: (error: unknown, attempt: number) => void,
  statement: () => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await statement();
    } catch (error) {
      if (signal.aborted) throw error;
      onError(error, attempt);
      await new Promise((r) => setTimeout(r, backoffMs(attempt)));
    }
  }
}
