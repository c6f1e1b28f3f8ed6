import { HEALTH } from '../../projections/webhooks/deliveries.ts';
import { handleCommand } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import type { WebhookAttempted } from '../../src/domain/webhooks/events.ts';
import { DELIVERY_KIND } from '../../src/domain/webhooks/messages.ts';
import { statusOf, subscriptionStream } from '../../src/domain/webhooks/subscription-state.ts';
import { dueNow } from '../../src/work/groups.ts';
import { forgetSubscription } from './subscription-cache.ts';

/** Failing for this long (every attempt since failed) disables a subscription. */
export const FAILING_FOR_MS = 5 * 24 * 3_600_000;
/** This many messages in a row that spent the whole schedule disable a subscription. */
export const FAILED_MESSAGES_IN_A_ROW = 20;

/** Disabled by us, once: a subscription already disabled, paused or gone is left as it is. */
export const disableSubscription = subscriptionStream.decider((command: { reason: string }, state, now) =>
  state.exists && statusOf(state) === 'active'
    ? [
        {
          type: 'WebhookDisabled',
          data: {
            subscriptionId: state.id,
            organizationId: state.organizationId,
            url: state.url,
            reason: command.reason,
            at: now.toISOString(),
          },
        },
      ]
    : [],
);

/**
 * The disable rules, after a failed attempt: 410 Gone at once; failing for 5 days; 20 messages in a
 * row that spent the schedule. The counts come from the health read model, which may lag the attempts
 * of the last moments by a batch: a rule may then hold one message later than exactly.
 */
export async function disableReason(
  deps: ServiceDeps,
  record: WebhookAttempted,
  gone: boolean,
): Promise<string | undefined> {
  if (gone) return 'The receiver answered 410 Gone.';
  if (record.outcome === 'succeeded' || record.test) return undefined;
  const { rows } = await deps.pool.query<{ consecutive_failures: number; failing_since: Date | null }>(
    `SELECT consecutive_failures, failing_since FROM ${HEALTH} WHERE subscription_id = $1`,
    [record.subscriptionId],
  );
  const health = rows[0];
  const since = health?.failing_since?.getTime() ?? Date.parse(record.at);
  if (deps.clock().getTime() - since >= FAILING_FOR_MS) return 'Every attempt failed for 5 days.';
  const inARow = (health?.consecutive_failures ?? 0) + (record.outcome === 'failed' ? 1 : 0);
  if (inARow >= FAILED_MESSAGES_IN_A_ROW) {
    return `${FAILED_MESSAGES_IN_A_ROW} messages in a row failed after every retry.`;
  }
  return undefined;
}

/**
 * Disables the subscription (a `webhook.disabled` to the organization's others follows from the log)
 * and drops what it had pending. Dropped, not cancelled: its waiting messages (queued, or waiting for a
 * retry) are made due at once, so that the worker finds the subscription disabled and records each as
 * skipped in the attempt log, as a pause does (worker.ts); cancelled, they kept their last status
 * (`retrying`, a time in the past) in the history for ever, and those never attempted never showed.
 */
export async function disable(
  deps: ServiceDeps,
  organizationId: string,
  subscriptionId: string,
  reason: string,
) {
  const { appended } = await handleCommand({
    store: deps.store,
    stream: subscriptionStream.name(organizationId, subscriptionId),
    decider: disableSubscription,
    command: { reason },
    metadata: { actor: 'webhooks' },
    now: deps.clock(),
  });
  // Not disabled now (already disabled, or paused: a pause waits for each message's turn).
  if (!appended) return;
  // After the append: a message read from the cache meanwhile would still see the subscription active.
  forgetSubscription(subscriptionId);
  await dueNow(deps.pool, { kind: DELIVERY_KIND, groupKey: subscriptionId });
  deps.work?.nudge(DELIVERY_KIND);
}
