import { forgetSubscription } from '../../processes/webhooks/subscription-cache.ts';
import { subscriptionsProjection } from '../../projections/webhooks/subscriptions.ts';
import { loadSubscription, viewWithHealth } from '../../services/webhooks/load.ts';
import { handleCommand } from '../../src/command.ts';
import { PatchWebhookBody, WebhookParams, WebhookSchema } from '../../src/domain/webhooks/schemas.ts';
import { subscriptionNotFound, subscriptionStream } from '../../src/domain/webhooks/subscription-state.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export interface UpdateWebhook {
  changes: { url?: string; eventTypes?: string[]; description?: string; enabled?: boolean };
}

/** Only what changes; `enabled: true` on a subscription we disabled makes it active again. */
export const updateWebhook = subscriptionStream.decider((command: UpdateWebhook, state, now) => {
  if (!state.exists) throw subscriptionNotFound(state.id);
  const changes = Object.fromEntries(
    Object.entries(command.changes).filter(([key, value]) => {
      const was = state[key as keyof typeof command.changes];
      if (key === 'enabled' && value === true && state.disabledReason !== null) return true;
      return JSON.stringify(was) !== JSON.stringify(value);
    }),
  );
  if (Object.keys(changes).length === 0) return [];
  const { id: subscriptionId, organizationId } = state;
  return [
    { type: 'WebhookUpdated', data: { subscriptionId, organizationId, changes, at: now.toISOString() } },
  ];
});

/** PATCH /api/webhooks/{id}: URL, event types, description, enabled (pause or resume). */
export const updateWebhookRoute: RouteModule = (app, deps) => {
  app.patch(
    '/api/webhooks/:id',
    {
      config: { access: 'webhooks:write' },
      schema: {
        operationId: 'patchWebhook',
        tags: ['webhooks'],
        summary: 'Change a webhook subscription, pause it or make it active again',
        params: WebhookParams,
        body: PatchWebhookBody,
        response: { 200: WebhookSchema },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const loaded = await loadSubscription(deps.store, principal, request.params.id);
      const result = await handleCommand({
        store: deps.store,
        stream: subscriptionStream.name(principal.organizationId, request.params.id),
        decider: updateWebhook,
        command: { changes: request.body },
        metadata: eventMetadata(request),
        now: deps.clock(),
        loaded,
      });
      forgetSubscription(request.params.id);
      await readYourWrites(deps, result.appended?.position, [subscriptionsProjection]);
      return viewWithHealth(deps.pool, result.state);
    },
  );
};
