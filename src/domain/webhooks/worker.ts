import { loadState } from '../../command.ts';
import { Semaphore } from '../../content-api/semaphore.ts';
import type { AppDeps } from '../../http/app.ts';
import { claimSticky, settleInGroups } from '../../work/batch.ts';
import type { WorkItem } from '../../work/queue.ts';
import type { Outcome, WorkerSpec } from '../../work/worker.ts';
import { attemptMessage } from './attempt.ts';
import { recordAttempt } from './attempt-log.ts';
import { disable, disableReason } from './disable.ts';
import { DELIVERY_KIND, type DeliveryPayload, PER_SUBSCRIPTION_CONCURRENCY } from './messages.ts';
import { uuidOf } from './signing.ts';
import { type SubscriptionState, statusOf, subscriptionStream } from './subscription-state.ts';

/**
 * Messages this process holds at once, all subscriptions together: up to 64 of each subscription are
 * claimed ahead (CLAIMED_PER_SUBSCRIPTION), of which 4 are being sent; the rest are recorded, settled
 * or waiting for a send slot, which costs a promise each, not a connection.
 */
const CONCURRENCY = 512;

/**
 * Delivers one message per work item: signed at each attempt, recorded as a WebhookAttempted whose id
 * is the item's and its claim's (a holder that died after recording and is run again records nothing
 * new), retried by the schedule, and the disable rules applied after a failure.
 */
export const deliveryWorker = (deps: AppDeps): WorkerSpec => ({
  kind: DELIVERY_KIND,
  concurrency: CONCURRENCY,
  // Renewed every third of it while an attempt runs (up to 15 s); short, so that the attempts of a
  // process that died are taken over within seconds.
  leaseMs: 10_000,
  // A subscription's claimed messages all in one process: its send slots bound every process's POSTs.
  claim: claimSticky,
  settle: settleInGroups,
  handle: (item, signal) => deliver(deps, item, signal),
});

/**
 * Subscriptions as their streams were read, for a second: a burst of messages to one subscription
 * reads its stream once, not once per message. A change (paused, URL, deleted) reaches deliveries
 * that long after; a rotation meanwhile is harmless, the old secret signing for 24 hours.
 */
const SUBSCRIPTION_TTL_MS = 1000;
const subscriptions = new Map<string, { state: SubscriptionState; until: number }>();

async function subscriptionOf(deps: AppDeps, message: DeliveryPayload): Promise<SubscriptionState> {
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

/** The send slots of each subscription in this process (sticky claims make them the only ones). */
const sendSlots = new Map<string, Semaphore>();

function slotsOf(subscriptionId: string): Semaphore {
  let slots = sendSlots.get(subscriptionId);
  if (!slots) {
    // Forgetting idle subscriptions' slots keeps the map small; one in use is kept (it has holders).
    if (sendSlots.size >= 10_000) for (const [id, s] of sendSlots) if (s.inUse === 0) sendSlots.delete(id);
    slots = new Semaphore(PER_SUBSCRIPTION_CONCURRENCY);
    sendSlots.set(subscriptionId, slots);
  }
  return slots;
}

export async function deliver(deps: AppDeps, item: WorkItem, signal: AbortSignal): Promise<Outcome> {
  const message = item.payload as DeliveryPayload;
  const sub = await subscriptionOf(deps, message);
  if (!sub.exists) return { status: 'done' };
  // Not sent while paused or disabled: a replay sends it once the subscription is active again.
  if (statusOf(sub) !== 'active') return { status: 'dead', error: `subscription ${statusOf(sub)}` };
  // The slot is held for the POST alone: recording and settling overlap the next messages' POSTs.
  const { record, gone } = await slotsOf(sub.id).run(async () => {
    signal.throwIfAborted();
    const result = await attemptMessage(
      deps,
      sub,
      { ...message, test: false },
      item.attempts,
      deps.config.WEBHOOK_RETRY_SCHEDULE,
      signal,
    );
    // Stopped or taken over meanwhile: not this holder's attempt to record (the next holder sends it).
    signal.throwIfAborted();
    return result;
  });
  await recordAttempt(deps.store, { eventId: uuidOf(`${item.id}:${item.attempts}`), record });
  const reason = await disableReason(deps, record, gone);
  if (reason) {
    subscriptions.delete(sub.id);
    await disable(deps, sub.organizationId, sub.id, reason);
  }
  if (record.outcome === 'succeeded') return { status: 'done' };
  const error = record.statusCode === null ? record.response : `HTTP ${record.statusCode}`;
  if (record.outcome === 'retrying' && !reason)
    return { status: 'retry', at: new Date(record.nextAttemptAt!), error };
  return { status: 'dead', error };
}
