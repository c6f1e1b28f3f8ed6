import { retryUntilAborted } from '../../src/db/backoff.ts';
import type { ServiceDeps } from '../../src/deps.ts';

/**
 * A run's database statements, each tried again with backoff until it answers (or `signal` aborts):
 * a run's item that threw five times would be dead, and its run would never end. Its driver, its
 * worker and its log writer go through this.
 */
export const runRetries =
  (deps: Pick<ServiceDeps, 'logger'>, runId: string, signal: AbortSignal) =>
  <T>(statement: () => Promise<T>): Promise<T> =>
    retryUntilAborted(
      signal,
      (error, attempt) =>
        deps.logger.warn({ err: error, runId, attempt }, "a run's statement failed; retrying"),
      statement,
    );
