import { z } from 'zod';
import { catalogueView } from '../../src/domain/webhooks/catalogue.ts';
import { describeWebhooks } from '../../src/http/openapi.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { catalogueWebhooks } from './openapi-webhooks.ts';

const EventTypes = z.object({
  data: z.array(
    z.object({
      type: z.string(),
      description: z.string(),
      schema: z.record(z.string(), z.unknown()).describe('JSON Schema of the payload data'),
    }),
  ),
});

/** GET /api/webhooks/event-types: the catalogue, each type with the JSON Schema of its `data`. */
export const eventTypesRoute: RouteModule = (app) => {
  const catalogue = { data: catalogueView() };
  // The messages themselves, in the OpenAPI document's `webhooks`: one per event type.
  describeWebhooks(app, catalogueWebhooks());
  app.get(
    '/api/webhooks/event-types',
    {
      config: { access: 'webhooks:read' },
      schema: {
        operationId: 'listWebhookEventTypes',
        tags: ['webhooks'],
        summary: 'The event types a subscription can take, with the schema of each',
        response: { 200: EventTypes },
      },
    },
    async () => catalogue,
  );
};
