import type { WorkItemInput } from '../../work/queue.ts';
import type { WebhookEvent } from './events.ts';

/** The work queue's kind for destroying a replaced signing secret's data key once it stops signing. */
export const KEY_EXPIRY_KIND = 'webhook-key-expiry';

export interface KeyExpiry {
  subscriptionId: string;
  keyId: string;
}

export type Rotated = Extract<WebhookEvent, { type: 'WebhookSecretRotated' }>['data'];

/**
 * Scheduled by the reactor from a rotation, due when the old secret stops signing: its data key is
 * then destroyed, so the ciphertext the log keeps of it can never be opened again.
 */
export const keyExpiryItem = (rotated: Rotated): WorkItemInput => ({
  id: `webhook-key:${rotated.previous.keyId}`,
  kind: KEY_EXPIRY_KIND,
  organizationId: rotated.organizationId,
  payload: { subscriptionId: rotated.subscriptionId, keyId: rotated.previous.keyId } satisfies KeyExpiry,
  runAt: new Date(rotated.previousUntil),
});
