import { HEALTH } from '../../projections/webhooks/deliveries.ts';
import type { Principal } from '../../src/auth/scopes.ts';
import { type LoadedState, loadState } from '../../src/command.ts';
import type { Pool } from '../../src/db/pool.ts';
import { type HealthRow, webhookView } from '../../src/domain/webhooks/access.ts';
import {
  isSubscriptionId,
  type SubscriptionState,
  subscriptionNotFound,
  subscriptionStream,
} from '../../src/domain/webhooks/subscription-state.ts';
import type { EventStore } from '../../src/event-store/port.ts';

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

export async function healthOf(pool: Pool, ids: readonly string[]): Promise<Map<string, HealthRow>> {
  const { rows } = await pool.query<HealthRow>(`SELECT * FROM ${HEALTH} WHERE subscription_id = ANY($1)`, [
    ids,
  ]);
  return new Map(rows.map((r) => [r.subscription_id, r]));
}

/** The view of one subscription with its health read now. */
export const viewWithHealth = async (pool: Pool, state: SubscriptionState) =>
  webhookView(state, (await healthOf(pool, [state.id])).get(state.id));
