import { webhookCommands } from '../../commands/webhooks/index.ts';
import { keyExpiryWorker } from '../../processes/webhooks/key-expiry.ts';
import { deliveryWorker } from '../../processes/webhooks/worker.ts';
import { deliveriesProjection } from '../../projections/webhooks/deliveries.ts';
import { webhookReactor } from '../../projections/webhooks/reactor.ts';
import { subscriptionsProjection } from '../../projections/webhooks/subscriptions.ts';
import { webhookQueries } from '../../queries/webhooks/index.ts';
import {
  attemptLogStream,
  deliveryStream,
  subscriptionStream,
} from '../../src/domain/webhooks/subscription-state.ts';
import type { Feature } from '../../src/feature.ts';

/**
 * Webhook subscriptions (Standard Webhooks): the events of an organization, signed, delivered from
 * the log at least once by the work queue, retried, recorded and replayable (docs/webhooks.md).
 */
export const webhooksFeature: Feature = {
  name: 'webhooks',
  streams: [subscriptionStream, deliveryStream, attemptLogStream],
  commands: webhookCommands,
  queries: webhookQueries,
  projections: [subscriptionsProjection, deliveriesProjection, webhookReactor],
  workers: [deliveryWorker, keyExpiryWorker],
};
