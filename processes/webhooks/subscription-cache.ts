import { loadState } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import type { DeliveryPayload } from '../../src/domain/webhooks/messages.ts';
import { type SubscriptionState, subscriptionStream } from '../../src/domain/webhooks/subscription-state.ts';

/**
 * Subscriptions as their streams were read, for a second: a burst of messages to one subscription
 * reads its stream once, not once per message. A change made through this process is seen at once
 * (its route forgets the entry); one made through another process reaches deliveries within that
 * second. A rotation meanwhile is harmless, the old secret signing for 24 hours.
 */
const SUBSCRIPTION_TTL_MS = 1000;
const subscriptions = new Map<string, { state: SubscriptionState; until: number }>();

export async function subscriptionOf(
  deps: ServiceDeps,
  message: DeliveryPayload,
): Promise<SubscriptionState> {
  const now = deps.clock().getTime();
  const cached = subscriptions.get(message.subscriptionId);
  if (cached && cached.until > now) return cached.state;
  const { state } = await loadState(
    deps.store,
    subscriptionStream.name(message.organizationId, message.subscriptionId),
    subscriptionStream,
  );
  if (subscriptions.size >= 10_000) subscriptions.clear();
  subscriptions.set(message.subscriptionId, { state, until: now + SUBSCRIPTION_TTL_MS });
  return state;
}

/** After a change to a subscription: the next message reads its stream again. */
export const forgetSubscription = (subscriptionId: string) => subscriptions.delete(subscriptionId);
