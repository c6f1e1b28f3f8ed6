import { z } from 'zod';
import { CATALOGUE, type CatalogueEntry, MAX_PAYLOAD_BYTES } from '../../src/domain/webhooks/catalogue.ts';

/**
 * The OpenAPI document's `webhooks` (OAS 3.1): one entry per event type of the catalogue, the message
 * a subscriber receives, with its payload schema (from the zod schema the service maps the event with)
 * and the Standard Webhooks headers, so that a client can generate its handlers' types. docs/webhooks.md
 * says how messages are signed, retried and disabled.
 */

type Json = Record<string, unknown>;

/** `row.created` -> `RowCreated`. */
const pascal = (type: string) =>
  type
    .split(/[._-]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/** The component name of an event type's message body: `RowCreatedEvent`. */
export const eventSchemaName = (type: string) => `${pascal(type)}Event`;

const header = (name: string, description: string, schema: Json) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema,
});

const HEADERS = [
  header('webhook-id', "The message's id: the same on every attempt of it; deduplicate on it", {
    type: 'string',
    pattern: '^msg_',
  }),
  header('webhook-timestamp', "The attempt's time, in unix seconds", { type: 'string', pattern: '^[0-9]+$' }),
  header(
    'webhook-signature',
    'Space-separated `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">` under each ' +
      'signing secret in force (two for 24 hours after a rotation)',
    { type: 'string' },
  ),
];

/** What a message carries instead of its data when the data would pass 64 KB. */
const TRUNCATED: Json = {
  type: 'object',
  description:
    `The data made the body larger than ${MAX_PAYLOAD_BYTES / 1024} KB: the object's ids, and a \`link\` ` +
    'to read it from, instead',
  properties: { truncated: { type: 'boolean', const: true }, link: { type: 'string' } },
  required: ['truncated'],
  additionalProperties: true,
};

/** The body of one event type's message: `{ type, timestamp, data }`, and `test` on a test send. */
function bodySchema(entry: CatalogueEntry): Json {
  const { $schema: _, ...data } = z.toJSONSchema(entry.schema, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  }) as Json;
  return {
    type: 'object',
    description: `A \`${entry.type}\` message: ${entry.description}`,
    properties: {
      type: { type: 'string', const: entry.type },
      timestamp: { type: 'string', format: 'date-time', description: 'When the event happened' },
      data: { anyOf: [data, TRUNCATED] },
      test: { type: 'boolean', const: true, description: 'Present on a test send only' },
    },
    required: ['type', 'timestamp', 'data'],
    additionalProperties: false,
  };
}

function pathItem(entry: CatalogueEntry): Json {
  return {
    post: {
      operationId: `receive${pascal(entry.type)}`,
      tags: ['webhooks'],
      summary: `The \`${entry.type}\` message`,
      description:
        `${entry.description} Sent as a POST to each active subscription that takes \`${entry.type}\` (or ` +
        '`*`), signed as Standard Webhooks sign. The receiver answers; no API key is involved.',
      security: [],
      parameters: HEADERS,
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: { $ref: `#/components/schemas/${eventSchemaName(entry.type)}` } },
        },
      },
      responses: {
        '2XX': { description: 'Received: any 2xx within 15 seconds ends the delivery' },
        '410': { description: 'Gone: the subscription is disabled at once, and no more messages are sent' },
        default: {
          description:
            'Failed (as is no answer within 15 seconds, or a redirect): retried on the schedule of ' +
            'docs/webhooks.md, after Retry-After when a 429 or 503 sends a longer one',
        },
      },
    },
  };
}

/** The `webhooks` of the document, and the message schemas they name. */
export function catalogueWebhooks(): { webhooks: Record<string, Json>; schemas: Record<string, Json> } {
  return {
    webhooks: Object.fromEntries(CATALOGUE.map((entry) => [entry.type, pathItem(entry)])),
    schemas: Object.fromEntries(CATALOGUE.map((entry) => [eventSchemaName(entry.type), bodySchema(entry)])),
  };
}
