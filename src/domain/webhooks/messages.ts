import type { WorkItemInput } from '../../work/queue.ts';
import { type CatalogueEntry, payloadOf } from './catalogue.ts';
import { messageIdOf } from './signing.ts';

/** The work queue's kind for webhook deliveries. */
export const DELIVERY_KIND = 'webhook-delivery';
/** Attempts in flight (POSTs) per subscription across every process: a slow receiver holds only these. */
export const PER_SUBSCRIPTION_CONCURRENCY = 4;
/**
 * Messages of a subscription claimed at once (the work items' group limit), all by one process (sticky
 * claims): while 4 are being sent, the others' attempts are being recorded and settled or wait their
 * turn, so the database's round trips overlap the POSTs instead of adding to them. 128: the attempts
 * are recorded 32 at a time (attempt-log.ts), and with 64 the other 32 were sent before the first 32
 * were recorded, settled and claimed again on a busy machine (the send slots stood idle about 12 % of
 * the time at a load of 6.7; 2 % with 128).
 */
export const CLAIMED_PER_SUBSCRIPTION = 128;

/** What a delivery's work item carries: the message as it is sent (signed anew at each attempt). */
export interface DeliveryPayload {
  subscriptionId: string;
  organizationId: string;
  messageId: string;
  eventType: string;
  eventAt: string;
  body: string;
}

export const deliveryItemId = (messageId: string) => `webhook:${messageId}`;

/** The work item of one message of one event for one subscription: its id is the same on every repeat. */
export function deliveryItem(
  subscription: { id: string; organizationId: string },
  entry: CatalogueEntry,
  event: { id: string; recordedAt: Date },
  message: { key: string; data: unknown },
): WorkItemInput {
  const messageId = messageIdOf(subscription.id, `${event.id}:${entry.type}:${message.key}`);
  const eventAt = event.recordedAt.toISOString();
  const payload: DeliveryPayload = {
    subscriptionId: subscription.id,
    organizationId: subscription.organizationId,
    messageId,
    eventType: entry.type,
    eventAt,
    body: payloadOf(entry, message.data, eventAt),
  };
  return {
    id: deliveryItemId(messageId),
    kind: DELIVERY_KIND,
    organizationId: subscription.organizationId,
    groupKey: subscription.id,
    groupLimit: CLAIMED_PER_SUBSCRIPTION,
    payload,
  };
}
