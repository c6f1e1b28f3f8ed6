import { eventTypesRoute } from './event-types.ts';
import { listDeliveriesRoute } from './list-deliveries.ts';
import { getWebhookRoute, listWebhooksRoute } from './list-webhooks.ts';

export const webhookQueries = [eventTypesRoute, listWebhooksRoute, getWebhookRoute, listDeliveriesRoute];
