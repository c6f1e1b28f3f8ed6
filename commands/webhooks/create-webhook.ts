import { subscriptionsProjection } from '../../projections/webhooks/subscriptions.ts';
import { sealSigningSecret } from '../../services/webhooks/secret-box.ts';
import { handleCommand } from '../../src/command.ts';
import { webhookView } from '../../src/domain/webhooks/access.ts';
import type { SealedSecret } from '../../src/domain/webhooks/events.ts';
import { CreateWebhookBody, WebhookWithSecret, webhookPath } from '../../src/domain/webhooks/schemas.ts';
import { newSigningSecret } from '../../src/domain/webhooks/signing.ts';
import { newSubscriptionId, subscriptionStream } from '../../src/domain/webhooks/subscription-state.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export interface CreateWebhook {
  subscriptionId: string;
  organizationId: string;
  url: string;
  eventTypes: string[];
  description: string;
  enabled: boolean;
  /** Sealed before deciding: the secret itself never reaches a decider or an event. */
  secret: SealedSecret;
}

export const createWebhook = subscriptionStream.decider((command: CreateWebhook, state, now) => {
  if (state.exists) throw new AppError('conflict', `Webhook subscription ${command.subscriptionId} exists.`);
  return [{ type: 'WebhookCreated', data: { ...command, at: now.toISOString() } }];
});

/** POST /api/webhooks: a subscription of the key's organization; its secret is shown here only. */
export const createWebhookRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/webhooks',
    {
      config: { access: 'webhooks:write', noStore: true },
      schema: {
        operationId: 'createWebhook',
        tags: ['webhooks'],
        summary: 'Subscribe a URL to event types (the signing secret is shown once)',
        body: CreateWebhookBody,
        response: { 201: WebhookWithSecret },
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      const subscriptionId = newSubscriptionId();
      const secret = newSigningSecret();
      const sealed = await sealSigningSecret(deps, organizationId, subscriptionId, secret);
      const result = await handleCommand({
        store: deps.store,
        stream: subscriptionStream.name(organizationId, subscriptionId),
        decider: createWebhook,
        command: { subscriptionId, organizationId, ...request.body, secret: sealed },
        metadata: eventMetadata(request),
        now: deps.clock(),
      });
      await readYourWrites(deps, result.appended?.position, [subscriptionsProjection]);
      reply.header('location', webhookPath(subscriptionId));
      return reply.code(201).send({ ...webhookView(result.state, undefined), secret });
    },
  );
};
