import { z } from 'zod';
import { loadSubscription } from '../../services/webhooks/load.ts';
import { DELIVERY_KIND, deliveryItemId } from '../../src/domain/webhooks/messages.ts';
import { DeliveryParams, ReplayBody, WebhookParams } from '../../src/domain/webhooks/schemas.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { requeue } from '../../src/work/queue.ts';

const Queued = z.object({ requeued: z.number().int().describe('messages sent again from now on') });

/**
 * POST /api/webhooks/{id}/deliveries/{deliveryId}/redeliver: the message once more (one attempt; the
 * schedule does not start over). 404 for a message this subscription does not have (or no longer
 * keeps: 30 days); 409 while it is still being delivered.
 */
export const redeliverRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      config: { access: 'webhooks:write' },
      schema: {
        operationId: 'redeliverWebhookDelivery',
        tags: ['webhooks'],
        summary: 'Send a message of the delivery history again',
        params: DeliveryParams,
        response: { 202: Queued },
      },
    },
    async (request, reply) => {
      const { id, deliveryId } = request.params;
      await loadSubscription(deps.store, principalOf(request), id);
      const itemId = deliveryItemId(deliveryId);
      const { rows } = await deps.pool.query<{ status: string }>(
        'SELECT status FROM work_items WHERE id = $1 AND kind = $2 AND group_key = $3',
        [itemId, DELIVERY_KIND, id],
      );
      if (!rows[0]) throw new AppError('not_found', `No message ${deliveryId} of webhook ${id}.`);
      const requeued = await requeue(deps.pool, [itemId]);
      if (requeued.length === 0) {
        throw new AppError('conflict', `Message ${deliveryId} is still being delivered.`);
      }
      deps.work?.nudge(DELIVERY_KIND);
      return reply.code(202).send({ requeued: requeued.length });
    },
  );
};

/**
 * POST /api/webhooks/{id}/replay {since, until}: every message of events in that window (the event's
 * time, `since` included, `until` not) that is settled is sent again; those still pending go anyway.
 */
export const replayRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/webhooks/:id/replay',
    {
      config: { access: 'webhooks:write' },
      schema: {
        operationId: 'replayWebhookMessages',
        tags: ['webhooks'],
        summary: 'Send again every message of a time window',
        params: WebhookParams,
        body: ReplayBody,
        response: { 202: Queued },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await loadSubscription(deps.store, principalOf(request), id);
      const { rows } = await deps.pool.query<{ id: string }>(
        `SELECT id FROM work_items
         WHERE kind = $1 AND group_key = $2 AND status IN ('done', 'dead', 'cancelled')
           AND (payload->>'eventAt')::timestamptz >= $3 AND (payload->>'eventAt')::timestamptz < $4`,
        [DELIVERY_KIND, id, request.body.since, request.body.until],
      );
      const requeued = await requeue(
        deps.pool,
        rows.map((r) => r.id),
      );
      deps.work?.nudge(DELIVERY_KIND);
      return reply.code(202).send({ requeued: requeued.length });
    },
  );
};
