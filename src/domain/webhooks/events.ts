import { z } from 'zod';
import type { EventsOf } from '../../stream.ts';

/** A signing secret as an event may hold it: sealed under a data key of the secrets' vault, never clear. */
export const SealedSecret = z.object({ keyId: z.string(), ciphertext: z.string() });
export type SealedSecret = z.infer<typeof SealedSecret>;

const subscription = { subscriptionId: z.string(), organizationId: z.string() };

/**
 * Events of a subscription's stream (`webhook-<organizationId>.<subscriptionId>`). The secret is only
 * ever the sealed form: its data key lives in secret_data_keys, outside the log.
 */
export const webhookEvents = {
  WebhookCreated: z.object({
    ...subscription,
    url: z.string(),
    eventTypes: z.array(z.string()),
    description: z.string(),
    enabled: z.boolean(),
    secret: SealedSecret,
    at: z.string(),
  }),
  WebhookUpdated: z.object({
    ...subscription,
    changes: z.object({
      url: z.string().optional(),
      eventTypes: z.array(z.string()).optional(),
      description: z.string().optional(),
      enabled: z.boolean().optional(),
    }),
    at: z.string(),
  }),
  /** The old secret still signs until `previousUntil` (the specification allows several signatures). */
  WebhookSecretRotated: z.object({
    ...subscription,
    secret: SealedSecret,
    previous: SealedSecret,
    previousUntil: z.string(),
    at: z.string(),
  }),
  /** By us: a 410, or failing for too long. Enabling it again (PATCH enabled) makes it active. */
  WebhookDisabled: z.object({ ...subscription, url: z.string(), reason: z.string(), at: z.string() }),
  WebhookDeleted: z.object({ ...subscription, at: z.string() }),
};

export type WebhookEvent = EventsOf<typeof webhookEvents>;

/** `skipped`: not sent, the subscription being paused or disabled when its turn came (replay sends it). */
export const ATTEMPT_OUTCOMES = ['succeeded', 'retrying', 'failed', 'skipped'] as const;

/** One attempt at one message: the history's unit (a message's attempts are its rows). */
const attempted = z.object({
  ...subscription,
  messageId: z.string(),
  eventType: z.string(),
  /** When the event happened (the payload's `timestamp`): replay windows are in this time. */
  eventAt: z.string(),
  test: z.boolean(),
  attempt: z.number().int().positive(),
  at: z.string(),
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int().nonnegative(),
  /** At most 1 KB of the response body, or the transport error. */
  response: z.string(),
  outcome: z.enum(ATTEMPT_OUTCOMES),
  nextAttemptAt: z.string().nullable(),
});

/**
 * One attempt in the message's own stream (`webhookmsg-<subscriptionId>.<messageId>`): how attempts
 * were recorded before WebhookAttemptsRecorded. Still read (logs hold them), no longer appended.
 */
export const deliveryEvents = { WebhookAttempted: attempted };

/**
 * The attempts of one subscription that finished together, in its attempt log
 * (`webhookatt-<organizationId>.<subscriptionId>`): one event and one stream row per batch instead of
 * a stream and an event per message, which was most of the database's work per delivered message.
 * Its id is made from its attempts' ids (the work item and its claim): the same batch appended again
 * appends nothing, and an attempt recorded twice in different batches is one row of the history.
 */
export const attemptLogEvents = {
  WebhookAttemptsRecorded: z.object({ ...subscription, attempts: z.array(attempted).min(1) }),
};

export type DeliveryEvent = EventsOf<typeof deliveryEvents> | EventsOf<typeof attemptLogEvents>;
export type WebhookAttempted = z.infer<typeof attempted>;
