import type { WebhookAttempted } from '../../src/domain/webhooks/events.ts';

/**
 * One attempt as the delivery worker hands it to the attempt log (processes/webhooks/attempt-log.ts):
 * the first attempt of a message of subscription `wh_1` of organization `o1` unless told otherwise.
 */
export function sampleAttempt({
  messageId,
  subscriptionId = 'wh_1',
  outcome = 'succeeded',
}: {
  messageId: string;
  subscriptionId?: string;
  outcome?: WebhookAttempted['outcome'];
}): { eventId: string; record: WebhookAttempted } {
  return {
    eventId: `${subscriptionId}:${messageId}`,
    record: {
      subscriptionId,
      organizationId: 'o1',
      messageId,
      eventType: 'row.created',
      eventAt: '2026-01-01T00:00:00.000Z',
      test: false,
      attempt: 1,
      at: '2026-01-01T00:00:01.000Z',
      statusCode: outcome === 'succeeded' ? 200 : 500,
      durationMs: 1,
      response: '',
      outcome,
      nextAttemptAt: outcome === 'retrying' ? '2026-01-01T00:00:06.000Z' : null,
    },
  };
}
