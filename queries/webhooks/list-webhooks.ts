import { type StoredSubscription, SUBSCRIPTIONS } from '../../projections/webhooks/subscriptions.ts';
import { healthOf } from '../../services/webhooks/load.ts';
import { webhookView } from '../../src/domain/webhooks/access.ts';
import { WebhookParams, WebhookSchema } from '../../src/domain/webhooks/schemas.ts';
import { isSubscriptionId, subscriptionNotFound } from '../../src/domain/webhooks/subscription-state.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, isTimestamp, PageQuery, pageFrom, pageOf } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';

type Row = Omit<StoredSubscription, 'created_at'> & { created_at: Date };

/** GET /api/webhooks: the organization's subscriptions, oldest first, a page at a time (no secrets). */
export const listWebhooksRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/webhooks',
    {
      config: { access: 'webhooks:read' },
      schema: {
        operationId: 'listWebhooks',
        tags: ['webhooks'],
        summary: 'List the webhook subscriptions',
        querystring: PageQuery,
        response: { 200: pageOf(WebhookSchema) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const [at, id] = cursor
        ? decodeCursor(cursor, 2, ([t, i]) => isTimestamp(t!) && isSubscriptionId(i!))
        : [null, null];
      const { rows } = await deps.pool.query<Row>(
        `SELECT * FROM ${SUBSCRIPTIONS}
         WHERE organization_id = $1 AND ($2::timestamptz IS NULL OR (created_at, id) > ($2, $3))
         ORDER BY created_at, id LIMIT $4`,
        [principalOf(request).organizationId, at, id, limit + 1],
      );
      const health = await healthOf(
        deps.pool,
        rows.map((r) => r.id),
      );
      return pageFrom(
        rows,
        limit,
        (r) => webhookView(r.state, health.get(r.id)),
        (r) => [r.created_at.toISOString(), r.id],
      );
    },
  );
};

/** GET /api/webhooks/{id}: one subscription, without its secret. */
export const getWebhookRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/webhooks/:id',
    {
      config: { access: 'webhooks:read' },
      schema: {
        operationId: 'getWebhook',
        tags: ['webhooks'],
        summary: 'Read a webhook subscription',
        params: WebhookParams,
        response: { 200: WebhookSchema },
      },
    },
    async (request) => {
      const { id } = request.params;
      if (!isSubscriptionId(id)) throw subscriptionNotFound(id);
      const { rows } = await deps.pool.query<Row>(
        `SELECT * FROM ${SUBSCRIPTIONS} WHERE id = $1 AND organization_id = $2`,
        [id, principalOf(request).organizationId],
      );
      if (!rows[0]) throw subscriptionNotFound(id);
      return webhookView(rows[0].state, (await healthOf(deps.pool, [id])).get(id));
    },
  );
};
