import { z } from 'zod';
import { EVENT_TYPES } from './catalogue.ts';
import { ATTEMPT_OUTCOMES } from './events.ts';
import { SUBSCRIPTION_STATUSES } from './subscription-state.ts';

/** Where messages go: an http(s) URL without credentials in it. */
const Url = z
  .url({ protocol: /^https?$/, error: 'expected an http(s) URL' })
  .max(2048)
  .refine((u) => !/^[a-z]+:\/\/[^/]*@/i.test(u), 'a URL with credentials is refused (use the signature)');
const EventTypes = z
  .array(z.enum(['*', ...EVENT_TYPES] as [string, ...string[]]))
  .min(1)
  .max(EVENT_TYPES.length + 1)
  .transform((types) => [...new Set(types)])
  .describe('catalogue names (GET /api/webhooks/event-types), or * for every type');
const Description = z.string().max(500);

export const CreateWebhookBody = z.strictObject({
  url: Url,
  eventTypes: EventTypes,
  description: Description.default(''),
  enabled: z.boolean().default(true),
});

export const PatchWebhookBody = z
  .strictObject({
    url: Url.optional(),
    eventTypes: EventTypes.optional(),
    description: Description.optional(),
    enabled: z.boolean().optional().describe('false pauses the subscription; true makes it active again'),
  })
  .refine((b) => Object.keys(b).length > 0, 'a PATCH changes at least one field');

export const WebhookParams = z.object({ id: z.string().max(100) });
export const DeliveryParams = WebhookParams.extend({ deliveryId: z.string().max(100) });

export const WebhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  eventTypes: z.array(z.string()),
  description: z.string(),
  status: z.enum(SUBSCRIPTION_STATUSES),
  disabledReason: z.string().nullable(),
  health: z.object({
    consecutiveFailures: z.number().int(),
    failingSince: z.string().nullable(),
    lastSuccessAt: z.string().nullable(),
  }),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type WebhookView = z.infer<typeof WebhookSchema>;

/** Only on create and rotation: `whsec_` and the base64 of 32 random bytes. */
export const WebhookWithSecret = WebhookSchema.extend({ secret: z.string() });

export const AttemptSchema = z.object({
  attempt: z.number().int(),
  at: z.string(),
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int(),
  response: z.string().describe('at most 1 KB of the response body, or the transport error'),
  outcome: z.enum(ATTEMPT_OUTCOMES),
  nextAttemptAt: z.string().nullable(),
});

export const DeliverySchema = z.object({
  id: z.string().describe('the message id, sent as webhook-id'),
  eventType: z.string(),
  eventAt: z.string(),
  test: z.boolean(),
  status: z.enum(ATTEMPT_OUTCOMES),
  nextAttemptAt: z.string().nullable(),
  attempts: z.array(AttemptSchema),
  createdAt: z.string(),
});

export const DeliveriesQuery = z.object({
  status: z.enum(ATTEMPT_OUTCOMES).optional(),
});

const Instant = z.iso.datetime({ offset: true });
export const ReplayBody = z
  .strictObject({ since: Instant, until: Instant })
  .refine((b) => Date.parse(b.since) < Date.parse(b.until), {
    message: 'since is before until',
    path: ['until'],
  });

export const TestBody = z.strictObject({ eventType: z.enum(EVENT_TYPES as [string, ...string[]]) });

export const webhookPath = (id: string) => `/api/webhooks/${encodeURIComponent(id)}`;
