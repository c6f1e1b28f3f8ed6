import { openSigningSecret } from '../../services/webhooks/secret-box.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import type { WebhookAttempted } from '../../src/domain/webhooks/events.ts';
import type { DeliveryPayload } from '../../src/domain/webhooks/messages.ts';
import { nextAttemptAt, retryAfterSeconds } from '../../src/domain/webhooks/retry.ts';
import { webhookHeaders } from '../../src/domain/webhooks/signing.ts';
import { type SubscriptionState, statusOf } from '../../src/domain/webhooks/subscription-state.ts';
import { postMessage, truncate } from './send.ts';

/** The secrets a message is signed with now: the current one, and the previous one for 24 h after a rotation. */
export async function signingSecrets(
  deps: ServiceDeps,
  sub: SubscriptionState,
  now: Date,
): Promise<string[]> {
  const sealed = [
    sub.secret,
    sub.previous && Date.parse(sub.previous.until) > now.getTime() ? sub.previous.secret : undefined,
  ];
  const secrets: string[] = [];
  for (const s of sealed) {
    if (!s) continue;
    const value = await openSigningSecret(deps, sub.organizationId, sub.id, s);
    if (value !== undefined) secrets.push(value);
  }
  return secrets;
}

/** One attempt's record, and whether the receiver said the subscription is gone for good (410). */
export interface AttemptResult {
  record: WebhookAttempted;
  gone: boolean;
}

/**
 * Sends one message once, signed now, and says how it went: succeeded (any 2xx), retrying at the
 * schedule's next step (or a 429's or 503's Retry-After, when longer), or failed (the schedule is
 * spent, or 410 Gone). `attempt` counts from 1; `schedule` is the retry schedule (none for a test).
 */
export async function attemptMessage(
  deps: ServiceDeps,
  sub: SubscriptionState,
  message: DeliveryPayload & { test: boolean },
  attempt: number,
  schedule: readonly number[],
  signal: AbortSignal,
): Promise<AttemptResult> {
  const now = deps.clock();
  const secrets = await signingSecrets(deps, sub, now);
  const headers = webhookHeaders(secrets, message.messageId, Math.floor(now.getTime() / 1000), message.body);
  const started = performance.now();
  let statusCode: number | null = null;
  let response: string;
  let retryAfter: number | undefined;
  try {
    const answer = await postMessage(deps.parts.deliveryClient, sub.url, headers, message.body, signal);
    statusCode = answer.statusCode;
    response = answer.excerpt;
    if (statusCode === 429 || statusCode === 503) retryAfter = retryAfterSeconds(answer.retryAfter, now);
  } catch (error) {
    response = truncate((error as Error).message);
  }
  const durationMs = Math.round(performance.now() - started);
  const succeeded = statusCode !== null && statusCode >= 200 && statusCode < 300;
  const gone = statusCode === 410;
  const next = succeeded || gone ? undefined : nextAttemptAt(schedule, attempt, deps.clock(), retryAfter);
  return {
    gone,
    record: {
      ...recordOf(sub, message, attempt, now),
      statusCode,
      durationMs,
      response,
      outcome: succeeded ? 'succeeded' : next ? 'retrying' : 'failed',
      nextAttemptAt: next?.toISOString() ?? null,
    },
  };
}

/** What a message not sent leaves in the history: the subscription was not active when its turn came. */
export const skippedAttempt = (
  sub: SubscriptionState,
  message: DeliveryPayload,
  attempt: number,
  now: Date,
): WebhookAttempted => ({
  ...recordOf(sub, message, attempt, now),
  statusCode: null,
  durationMs: 0,
  response: `skipped: subscription ${statusOf(sub)}`,
  outcome: 'skipped',
  nextAttemptAt: null,
});

const recordOf = (
  sub: SubscriptionState,
  message: DeliveryPayload & { test?: boolean },
  attempt: number,
  now: Date,
) => ({
  subscriptionId: sub.id,
  organizationId: sub.organizationId,
  messageId: message.messageId,
  eventType: message.eventType,
  eventAt: message.eventAt,
  test: message.test ?? false,
  attempt,
  at: now.toISOString(),
});
