import { z } from 'zod';
import { forgetSubscription } from '../../processes/webhooks/subscription-cache.ts';
import { subscriptionsProjection } from '../../projections/webhooks/subscriptions.ts';
import { loadSubscription } from '../../services/webhooks/load.ts';
import { destroySigningKeys } from '../../services/webhooks/secret-box.ts';
import { handleCommand } from '../../src/command.ts';
import { DELIVERY_KIND } from '../../src/domain/webhooks/messages.ts';
import { WebhookParams } from '../../src/domain/webhooks/schemas.ts';
import { subscriptionNotFound, subscriptionStream } from '../../src/domain/webhooks/subscription-state.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { cancelPending } from '../../src/work/groups.ts';

export const deleteWebhook = subscriptionStream.decider((_command: Record<string, never>, state, now) => {
  if (!state.exists) throw subscriptionNotFound(state.id);
  const { id: subscriptionId, organizationId } = state;
  return [{ type: 'WebhookDeleted', data: { subscriptionId, organizationId, at: now.toISOString() } }];
});

/** DELETE /api/webhooks/{id}: no more messages; what was pending is dropped, the secret's key destroyed. */
export const deleteWebhookRoute: RouteModule = (app, deps) => {
  app.delete(
    '/api/webhooks/:id',
    {
      config: { access: 'webhooks:write' },
      schema: {
        operationId: 'deleteWebhook',
        tags: ['webhooks'],
        summary: 'Delete a webhook subscription',
        params: WebhookParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { id } = request.params;
      const loaded = await loadSubscription(deps.store, principal, id);
      const result = await handleCommand({
        store: deps.store,
        stream: subscriptionStream.name(principal.organizationId, id),
        decider: deleteWebhook,
        command: {},
        metadata: eventMetadata(request),
        now: deps.clock(),
        loaded,
      });
      forgetSubscription(id);
      await cancelPending(deps.pool, { kind: DELIVERY_KIND, groupKey: id });
      await destroySigningKeys(deps.pool, principal.organizationId, id);
      await readYourWrites(deps, result.appended?.position, [subscriptionsProjection]);
      return reply.code(204).send(null);
    },
  );
};
