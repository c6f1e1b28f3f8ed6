import type { ExecutionMeta, ExecutionOutcome } from '../executor.ts';

/** The meta of a row that failed before anything was sent. */
export const NOTHING_SENT: ExecutionMeta = { durationMs: 0, attempts: 0 };

export const failed = (
  code: string,
  message: string,
  meta: ExecutionMeta = NOTHING_SENT,
): ExecutionOutcome => ({
  ok: false,
  error: { code, message },
  meta,
});

export const succeeded = (value: unknown, meta: ExecutionMeta = NOTHING_SENT): ExecutionOutcome => ({
  ok: true,
  value,
  meta,
});

/** Milliseconds since `started` by the executor's clock. */
export const since = (started: Date, now: Date) => Math.max(0, now.getTime() - started.getTime());
