import { HEALTH } from '../../projections/webhooks/deliveries.ts';
import type { Principal } from '../../src/auth/scopes.ts';
import { type LoadedState, loadState } from '../../src/command.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import type { WebhookView } from '../../src/domain/webhooks/schemas.ts';
import {
  isSubscriptionId,
  type SubscriptionState,
  statusOf,
  subscriptionNotFound,
  subscriptionStream,
} from '../../src/domain/webhooks/subscription-state.ts';

/**
 * A subscription of the key's organization as its stream tells it, for a command: 404 when there is
 * none (the organization is in the stream's name, so another organization's is never found).
 */
export async function loadSubscription(
  store: EventStore,
  principal: Principal,
  id: string,
): Promise<LoadedState<SubscriptionState>> {
  if (!isSubscriptionId(id)) throw subscriptionNotFound(id);
  const loaded = await loadState(
    store,
    subscriptionStream.name(principal.organizationId, id),
    subscriptionStream,
  );
  if (!loaded.state.exists) throw subscriptionNotFound(id);
  return loaded;
}

export interface HealthRow {
  subscription_id: string;
  consecutive_failures: number;
  failing_since: Date | null;
  last_success_at: Date | null;
}

export async function healthOf(pool: Pool, ids: readonly string[]): Promise<Map<string, HealthRow>> {
  const { rows } = await pool.query<HealthRow>(`SELECT * FROM ${HEALTH} WHERE subscription_id = ANY($1)`, [
    ids,
  ]);
  return new Map(rows.map((r) => [r.subscription_id, r]));
}

/** A subscription as the API shows it: never its secret. */
export const webhookView = (state: SubscriptionState, health: HealthRow | undefined): WebhookView => ({
  id: state.id,
  url: state.url,
  eventTypes: state.eventTypes,
  description: state.description,
  status: statusOf(state),
  disabledReason: state.disabledReason,
  health: {
    consecutiveFailures: health?.consecutive_failures ?? 0,
    failingSince: health?.failing_since?.toISOString() ?? null,
    lastSuccessAt: health?.last_success_at?.toISOString() ?? null,
  },
  createdAt: state.createdAt,
  updatedAt: state.updatedAt,
});

/** The view of one subscription with its health read now. */
export const viewWithHealth = async (pool: Pool, state: SubscriptionState) =>
  webhookView(state, (await healthOf(pool, [state.id])).get(state.id));
