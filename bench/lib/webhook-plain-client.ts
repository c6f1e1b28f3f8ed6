import { type DeliveryPayload, PER_SUBSCRIPTION_CONCURRENCY } from '../../src/domain/webhooks/messages.ts';
import { webhookHeaders } from '../../src/domain/webhooks/signing.ts';

/**
 * The peer of the service's webhook deliveries: POSTs each payload's body to `url`, signed with
 * `secret` as the service signs it, with fetch, PER_SUBSCRIPTION_CONCURRENCY at a time (the
 * service's limit for one subscription), reading each answer and recording nothing.
 */
export async function postLikeAPlainClient(
  url: string,
  secret: string,
  payloads: readonly DeliveryPayload[],
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: PER_SUBSCRIPTION_CONCURRENCY }, async () => {
      while (next < payloads.length) {
        const { messageId, body } = payloads[next++]!;
        const headers = webhookHeaders([secret], messageId, Math.floor(Date.now() / 1000), body);
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body,
        });
        await res.arrayBuffer();
      }
    }),
  );
}
