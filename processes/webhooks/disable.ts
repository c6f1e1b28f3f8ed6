import { deliveriesProjection, HEALTH } from '../../projections/webhooks/deliveries.ts';
import { handleCommand } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import type { WebhookAttempted } from '../../src/domain/webhooks/events.ts';
import { DELIVERY_KIND } from '../../src/domain/webhooks/messages.ts';
import { statusOf, subscriptionStream } from '../../src/domain/webhooks/subscription-state.ts';
import type { Position } from '../../src/event-store/port.ts';
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

/** The longest a failed message waits for the health read model to count it (then the count may lag). */
export const HEALTH_WAIT_MS = 10_000;

/**
 * The disable rules, after an attempt that did not succeed (recorded at `position`): 410 Gone at once;
 * failing for 5 days; 20 messages in a row that spent the schedule. The counts come from the health read
 * model. After a failed message it is read once it has applied that message's append: read at once, it
 * could miss the failures recorded in the last moments (several messages fail at once, each recorded
 * while the projection was behind the others), and the twentieth failure then read 19 or less: the rule
 * held at a later failure, or never when none came (found under load by webhooks-disable-history).
 * Waiting holds the worker's slot, not a send slot; a projection stopped or far behind is waited for
 * HEALTH_WAIT_MS at most, and then the count is what it shows, plus this message.
 */
export async function disableReason(
  deps: ServiceDeps,
  record: WebhookAttempted,
  gone: boolean,
  position: Position,
): Promise<string | undefined> {
  if (gone) return 'The receiver answered 410 Gone.';
  if (record.outcome === 'succeeded' || record.test) return undefined;
  const counted = record.outcome === 'failed' && (await healthCounts(deps, position));
  const { rows } = await deps.pool.query<{ consecutive_failures: number; failing_since: Date | null }>(
    `SELECT consecutive_failures, failing_since FROM ${HEALTH} WHERE subscription_id = $1`,
    [record.subscriptionId],
  );
  const health = rows[0];
  const since = health?.failing_since?.getTime() ?? Date.parse(record.at);
  if (deps.clock().getTime() - since >= FAILING_FOR_MS) return 'Every attempt failed for 5 days.';
  const inARow = (health?.consecutive_failures ?? 0) + (record.outcome === 'failed' && !counted ? 1 : 0);
  if (inARow >= FAILED_MESSAGES_IN_A_ROW) {
    return `${FAILED_MESSAGES_IN_A_ROW} messages in a row failed after every retry.`;
  }
  return undefined;
}

/** Whether the health read model has applied the append at `position` (false after HEALTH_WAIT_MS). */
async function healthCounts(deps: ServiceDeps, position: Position): Promise<boolean> {
  try {
    await deps.projections.waitFor(position, [deliveriesProjection], HEALTH_WAIT_MS);
    return true;
  } catch (err) {
    deps.logger.warn({ err }, 'the webhook health read model is behind: the disable rules read it as it is');
    return false;
  }
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
