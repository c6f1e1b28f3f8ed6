import { destroySigningKey } from '../../services/webhooks/secret-box.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { KEY_EXPIRY_KIND, type KeyExpiry } from '../../src/domain/webhooks/key-expiry.ts';
import type { WorkerSpec } from '../../src/work/worker.ts';

export const keyExpiryWorker = (deps: ServiceDeps): WorkerSpec => ({
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
