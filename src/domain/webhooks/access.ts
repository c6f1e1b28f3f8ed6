import type { WebhookView } from './schemas.ts';
import { type SubscriptionState, statusOf } from './subscription-state.ts';

export interface HealthRow {
  subscription_id: string;
  consecutive_failures: number;
  failing_since: Date | null;
  last_success_at: Date | null;
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
