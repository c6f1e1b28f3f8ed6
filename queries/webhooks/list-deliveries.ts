import { z } from 'zod';
import { ATTEMPTS, MESSAGES } from '../../projections/webhooks/deliveries.ts';
import { SUBSCRIPTIONS } from '../../projections/webhooks/subscriptions.ts';
import type { WebhookAttempted } from '../../src/domain/webhooks/events.ts';
import { DeliveriesQuery, DeliverySchema, WebhookParams } from '../../src/domain/webhooks/schemas.ts';
import { isSubscriptionId, subscriptionNotFound } from '../../src/domain/webhooks/subscription-state.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, isTimestamp, PageQuery, pageFrom, pageOf } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';

interface MessageRow {
  id: string;
  event_type: string;
  event_at: Date;
  test: boolean;
  status: WebhookAttempted['outcome'];
  next_attempt_at: Date | null;
  created_at: Date;
  attempts: {
    attempt: number;
    at: string;
    statusCode: number | null;
    durationMs: number;
    response: string;
    outcome: WebhookAttempted['outcome'];
    nextAttemptAt: string | null;
  }[];
}

const iso = (text: string | null) => (text === null ? null : new Date(text).toISOString());

/**
 * GET /api/webhooks/{id}/deliveries?status=&cursor=: the messages of a subscription, newest first,
 * each with its attempts.
 */
export const listDeliveriesRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/webhooks/:id/deliveries',
    {
      config: { access: 'webhooks:read' },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['webhooks'],
        summary: 'The delivery history of a webhook subscription',
        params: WebhookParams,
        querystring: z.object({ ...PageQuery.shape, ...DeliveriesQuery.shape }),
        response: { 200: pageOf(DeliverySchema) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const { limit, cursor, status } = request.query;
      if (!isSubscriptionId(id)) throw subscriptionNotFound(id);
      const owned = await deps.pool.query(
        `SELECT 1 FROM ${SUBSCRIPTIONS} WHERE id = $1 AND organization_id = $2`,
        [id, principalOf(request).organizationId],
      );
      if (owned.rowCount === 0) throw subscriptionNotFound(id);
      const [at, after] = cursor ? decodeCursor(cursor, 2, ([t]) => isTimestamp(t!)) : [null, null];
      const { rows } = await deps.pool.query<MessageRow>(
        `SELECT m.id, m.event_type, m.event_at, m.test, m.status, m.next_attempt_at, m.created_at,
                (SELECT json_agg(json_build_object('attempt', a.attempt, 'at', a.at, 'statusCode', a.status_code,
                        'durationMs', a.duration_ms, 'response', a.response, 'outcome', a.outcome,
                        'nextAttemptAt', a.next_attempt_at) ORDER BY a.attempt)
                 FROM ${ATTEMPTS} a WHERE a.message_id = m.id) AS attempts
         FROM ${MESSAGES} m
         WHERE m.subscription_id = $1 AND ($2::text IS NULL OR m.status = $2)
           AND ($3::timestamptz IS NULL OR (m.created_at, m.id) < ($3, $4))
         ORDER BY m.created_at DESC, m.id DESC LIMIT $5`,
        [id, status ?? null, at, after, limit + 1],
      );
      return pageFrom(
        rows,
        limit,
        (m) => ({
          id: m.id,
          eventType: m.event_type,
          eventAt: m.event_at.toISOString(),
          test: m.test,
          status: m.status,
          nextAttemptAt: m.next_attempt_at?.toISOString() ?? null,
          attempts: (m.attempts ?? []).map((a) => ({
            ...a,
            at: iso(a.at)!,
            nextAttemptAt: iso(a.nextAttemptAt),
          })),
          createdAt: m.created_at.toISOString(),
        }),
        (m) => [m.created_at.toISOString(), m.id],
      );
    },
  );
};
