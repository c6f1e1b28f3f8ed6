import { destroySigningKey } from '../../services/webhooks/secret-box.ts';
import type { WebhookEvent } from '../../src/domain/webhooks/events.ts';
import type { AppDeps } from '../../src/http/app.ts';
import type { WorkItemInput } from '../../src/work/queue.ts';
import type { WorkerSpec } from '../../src/work/worker.ts';

/** The work queue's kind for destroying a replaced signing secret's data key once it stops signing. */
export const KEY_EXPIRY_KIND = 'webhook-key-expiry';

interface KeyExpiry {
  subscriptionId: string;
  keyId: string;
}

type Rotated = Extract<WebhookEvent, { type: 'WebhookSecretRotated' }>['data'];

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

export const keyExpiryWorker = (deps: AppDeps): WorkerSpec => ({
  kind: KEY_EXPIRY_KIND,
  concurrency: 1,
  // Due a day after it is scheduled: a poll a minute finds it in time, at next to no cost.
  pollMs: 60_000,
  async handle(item) {
    const { subscriptionId, keyId } = item.payload as KeyExpiry;
    await destroySigningKey(deps.pool, item.organizationId, subscriptionId, keyId);
    return { status: 'done' };
  },
});
