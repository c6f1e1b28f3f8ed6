import { ATTEMPTS, MESSAGES } from '../../projections/webhooks/deliveries.ts';
import type { ServiceDeps } from '../../src/deps.ts';

/** How often a process prunes the delivery history, at most (service clock). */
const PRUNE_EVERY_MS = 3_600_000;
/** Messages removed per statement: a large first prune goes in slices, not one long lock. */
const PRUNE_BATCH = 5000;
const DAY_MS = 86_400_000;

/** When this service last pruned (ServiceParts.historyPrune): at most once an hour per process. */
export class PruneClock {
  last = Number.NEGATIVE_INFINITY;
}

declare module '../../src/deps.ts' {
  interface ServiceParts {
    historyPrune: PruneClock;
  }
}

/**
 * Removes from the delivery history the messages whose last attempt is older than
 * WEBHOOK_HISTORY_DAYS, with their attempts. Called as deliveries are recorded, and does its work at
 * most once an hour per process: the history grows only with deliveries, so it is pruned as it grows.
 * A rebuild of the read model from the log brings old messages back until the next prune.
 */
export async function pruneHistoryNowAndThen(deps: ServiceDeps): Promise<number> {
  const now = deps.clock().getTime();
  const clock = deps.parts.historyPrune;
  if (now - clock.last < PRUNE_EVERY_MS) return 0;
  clock.last = now;
  const before = new Date(now - deps.config.WEBHOOK_HISTORY_DAYS * DAY_MS);
  let pruned = 0;
  for (;;) {
    const { rows } = await deps.pool.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM ${MESSAGES} WHERE id IN (
           SELECT id FROM ${MESSAGES} WHERE last_attempt_at < $1 ORDER BY last_attempt_at LIMIT $2)
         RETURNING id),
       attempts AS (DELETE FROM ${ATTEMPTS} WHERE message_id IN (SELECT id FROM gone))
       SELECT count(*)::int AS n FROM gone`,
      [before, PRUNE_BATCH],
    );
    pruned += rows[0]!.n;
    if (rows[0]!.n < PRUNE_BATCH) return pruned;
  }
}
