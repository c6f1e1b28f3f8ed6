import { forgetSubscription } from '../../processes/webhooks/subscription-cache.ts';
import { subscriptionsProjection } from '../../projections/webhooks/subscriptions.ts';
import { loadSubscription, viewWithHealth } from '../../services/webhooks/load.ts';
import { sealSigningSecret } from '../../services/webhooks/secret-box.ts';
import { handleCommand } from '../../src/command.ts';
import type { SealedSecret } from '../../src/domain/webhooks/events.ts';
import { WebhookParams, WebhookWithSecret } from '../../src/domain/webhooks/schemas.ts';
import { newSigningSecret } from '../../src/domain/webhooks/signing.ts';
import { subscriptionNotFound, subscriptionStream } from '../../src/domain/webhooks/subscription-state.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/** How long the replaced secret still signs: receivers move to the new one meanwhile. */
export const PREVIOUS_SECRET_MS = 24 * 3_600_000;

export const rotateSecret = subscriptionStream.decider((command: { secret: SealedSecret }, state, now) => {
  if (!state.exists || !state.secret) throw subscriptionNotFound(state.id);
  return [
    {
      type: 'WebhookSecretRotated',
      data: {
        subscriptionId: state.id,
        organizationId: state.organizationId,
        secret: command.secret,
        previous: state.secret,
        previousUntil: new Date(now.getTime() + PREVIOUS_SECRET_MS).toISOString(),
        at: now.toISOString(),
      },
    },
  ];
});

/** POST /api/webhooks/{id}/rotate-secret: a new secret; for 24 h messages carry both signatures. */
export const rotateSecretRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/webhooks/:id/rotate-secret',
    {
      config: { access: 'webhooks:write', noStore: true },
      schema: {
        operationId: 'rotateWebhookSecret',
        tags: ['webhooks'],
        summary: 'Replace the signing secret (the old one also signs for 24 hours)',
        params: WebhookParams,
        response: { 200: WebhookWithSecret },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const { id } = request.params;
      const loaded = await loadSubscription(deps.store, principal, id);
      const secret = newSigningSecret();
      const sealed = await sealSigningSecret(deps, principal.organizationId, id, secret);
      const result = await handleCommand({
        store: deps.store,
        stream: subscriptionStream.name(principal.organizationId, id),
        decider: rotateSecret,
        command: { secret: sealed },
        metadata: eventMetadata(request),
        now: deps.clock(),
        loaded,
      });
      forgetSubscription(id);
      await readYourWrites(deps, result.appended?.position, [subscriptionsProjection]);
      return { ...(await viewWithHealth(deps.pool, result.state)), secret };
    },
  );
};
