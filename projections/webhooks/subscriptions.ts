import {
  type SubscriptionState,
  statusOf,
  subscriptionStream,
} from '../../src/domain/webhooks/subscription-state.ts';
import { singleStreamProjection } from '../../src/projection/single-stream.ts';

/** Logical name of the read model; queries import it from here. */
export const SUBSCRIPTIONS = 'webhook_subscriptions';

/** A row as stored: the columns lists and filters need, and the whole state (the secret only sealed). */
export interface StoredSubscription {
  id: string;
  organization_id: string;
  created_at: string;
  status: string;
  state: SubscriptionState;
}

/** Webhook subscriptions by organization, for listing (cursor over created_at, id) and reading. */
export const subscriptionsProjection = singleStreamProjection({
  name: 'webhook-subscriptions',
  version: 1,
  stream: subscriptionStream,
  handles: ['WebhookCreated', 'WebhookUpdated', 'WebhookSecretRotated', 'WebhookDisabled', 'WebhookDeleted'],
  idOf: (event) => event.data.subscriptionId,
  table: {
    name: SUBSCRIPTIONS,
    key: 'id',
    columns: {
      id: 'text',
      organization_id: 'text',
      created_at: 'timestamptz',
      status: 'text',
      state: 'jsonb',
    },
    indexes: (t) => [`CREATE INDEX ${t}_by_organization ON ${t} (organization_id, created_at, id)`],
  },
  toRow: (state: SubscriptionState): StoredSubscription | undefined =>
    state.exists
      ? {
          id: state.id,
          organization_id: state.organizationId,
          created_at: state.createdAt,
          status: statusOf(state),
          state,
        }
      : undefined,
  fromRow: (row: StoredSubscription): SubscriptionState => row.state,
});
