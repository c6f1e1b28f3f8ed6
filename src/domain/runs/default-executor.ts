import type { Executor } from './executor.ts';

/**
 * Until the providers land (src/domain/runs/executors/), every row fails with
 * `provider_not_implemented` and costs nothing: a run ends, and nothing crashes.
 */
export const executorFor =
  (_config: Readonly<Record<string, unknown>>): Executor =>
  async () => ({
    ok: false,
    error: { code: 'provider_not_implemented', message: 'no executor for this provider yet' },
    meta: { durationMs: 0, attempts: 0 },
  });
