/** The webhook delivery work items of one subscription, read for bench/webhooks.ts. */
import type { Pool } from '../../src/db/pool.ts';
import { DELIVERY_KIND, type DeliveryPayload } from '../../src/domain/webhooks/messages.ts';

/** How many delivery work items of the subscription are in the queue. */
export async function pendingDeliveries(pool: Pool, subscriptionId: string): Promise<number> {
  return (
    await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM work_items WHERE kind = $1 AND group_key = $2`,
      [DELIVERY_KIND, subscriptionId],
    )
  ).rows[0]!.n;
}

/** The payloads of the subscription's delivery work items, in the order they were enqueued. */
export async function queuedPayloads(pool: Pool, subscriptionId: string): Promise<DeliveryPayload[]> {
  const { rows } = await pool.query<{ payload: DeliveryPayload }>(
    `SELECT payload FROM work_items WHERE kind = $1 AND group_key = $2 ORDER BY id`,
    [DELIVERY_KIND, subscriptionId],
  );
  return rows.map((r) => r.payload);
}

/**
 * Milliseconds from each message's event to its work item (the reactor's commit), sorted: the first
 * part of the event-to-delivery latency.
 */
export async function enqueueDelays(pool: Pool, subscriptionId: string): Promise<number[]> {
  const { rows } = await pool.query<{ ms: number }>(
    `SELECT extract(epoch FROM created_at - (payload->>'eventAt')::timestamptz) * 1000 AS ms
     FROM work_items WHERE kind = $1 AND group_key = $2 ORDER BY 1`,
    [DELIVERY_KIND, subscriptionId],
  );
  return rows.map((r) => Number(r.ms));
}
