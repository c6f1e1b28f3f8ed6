import { Semaphore } from '../../src/content-api/semaphore.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import type { WebhookAttempted } from '../../src/domain/webhooks/events.ts';
import {
  CLAIMED_PER_SUBSCRIPTION,
  DELIVERY_KIND,
  type DeliveryPayload,
  PER_SUBSCRIPTION_CONCURRENCY,
} from '../../src/domain/webhooks/messages.ts';
import { uuidOf } from '../../src/domain/webhooks/signing.ts';
import { statusOf } from '../../src/domain/webhooks/subscription-state.ts';
import type { Position } from '../../src/event-store/port.ts';
import { settleAndClaimSticky } from '../../src/work/batch.ts';
import type { WorkItem } from '../../src/work/queue.ts';
import type { Outcome, WorkerSpec } from '../../src/work/worker.ts';
import { attemptMessage, skippedAttempt } from './attempt.ts';
import { disable, disableReason } from './disable.ts';
import { pruneHistoryNowAndThen } from './history-retention.ts';
import { subscriptionOf } from './subscription-cache.ts';

/**
 * Messages this process holds at once, all subscriptions together: up to 128 of each subscription are
 * claimed ahead (CLAIMED_PER_SUBSCRIPTION), of which 4 are being sent; the rest are recorded, settled
 * or waiting for a send slot, which costs a promise each, not a connection. 8 subscriptions' worth, so
 * that 8 slow receivers can hold this process's slots before the others wait for them.
 */
const CONCURRENCY = 8 * CLAIMED_PER_SUBSCRIPTION;

/**
 * Delivers one message per work item: signed at each attempt, recorded as a WebhookAttempted whose id
 * is the item's and its claim's (a holder that died after recording and is run again records nothing
 * new), retried by the schedule, and the disable rules applied after a failure.
 */
export const deliveryWorker = (deps: ServiceDeps): WorkerSpec => ({
  kind: DELIVERY_KIND,
  concurrency: CONCURRENCY,
  // Renewed every third of it while an attempt runs (up to 15 s); short, so that the attempts of a
  // process that died are taken over within seconds.
  leaseMs: 10_000,
  // Sticky claims: a subscription's claimed messages all in one process, so its send slots bound every
  // process's POSTs. The finished messages are settled in the claim's transaction (migration 0023).
  settleAndClaim: settleAndClaimSticky,
  handle: (item, signal) => deliver(deps, item, signal),
});

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

export async function deliver(deps: ServiceDeps, item: WorkItem, signal: AbortSignal): Promise<Outcome> {
  const message = item.payload as DeliveryPayload;
  const log = deps.parts.attemptLog;
  // Said before waiting for a send slot: the attempts recorded meanwhile wait for this one (attempt-log.ts).
  log.begin(message.subscriptionId);
  let recording = false;
  const record = (record: WebhookAttempted) => {
    recording = true;
    return log.record({ eventId: uuidOf(`${item.id}:${item.attempts}`), record });
  };
  try {
    return await attemptAndRecord(deps, item, message, signal, record);
  } finally {
    if (!recording) log.abandon(message.subscriptionId);
  }
}

async function attemptAndRecord(
  deps: ServiceDeps,
  item: WorkItem,
  message: DeliveryPayload,
  signal: AbortSignal,
  recordAttempt: (record: WebhookAttempted) => Promise<Position>,
): Promise<Outcome> {
  // The slot is held for the POST alone: recording and settling overlap the next messages' POSTs. The
  // subscription is read in it, so that a pause stops every message not yet being sent.
  const sent = await slotsOf(message.subscriptionId).run(async () => {
    signal.throwIfAborted();
    const sub = await subscriptionOf(deps, message);
    if (!sub.exists || statusOf(sub) !== 'active') return { sub };
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
    return { sub, ...result };
  });
  const { sub } = sent;
  if (!sub.exists) return { status: 'done' };
  if (!('record' in sent)) {
    // Not sent while paused or disabled, but shown in the history as skipped: a replay of its window
    // sends it once the subscription is active again.
    const record = skippedAttempt(sub, message, item.attempts, deps.clock());
    await recordAttempt(record);
    return { status: 'dead', error: record.response };
  }
  const { record, gone } = sent;
  const position = await recordAttempt(record);
  // Off the delivery's path: a failed prune is tried again an hour later.
  pruneHistoryNowAndThen(deps).catch((err) =>
    deps.logger.warn({ err }, 'pruning the webhook history failed'),
  );
  const reason = await disableReason(deps, record, gone, position);
  if (reason) await disable(deps, sub.organizationId, sub.id, reason);
  if (record.outcome === 'succeeded') return { status: 'done' };
  const error = record.statusCode === null ? record.response : `HTTP ${record.statusCode}`;
  if (record.outcome === 'failed') return { status: 'dead', error };
  // Retrying, but the subscription was disabled meanwhile (by this attempt or another in flight, which
  // made the waiting messages due before this one was settled): its turn comes at once, to be recorded
  // as skipped like the others, not left `retrying` in the history. A pause waits for its turn.
  const dropped = await disabledNow(deps, message);
  return { status: 'retry', at: dropped ? deps.clock() : new Date(record.nextAttemptAt!), error };
}

async function disabledNow(deps: ServiceDeps, message: DeliveryPayload): Promise<boolean> {
  const sub = await subscriptionOf(deps, message);
  return !sub.exists || statusOf(sub) === 'disabled';
}
