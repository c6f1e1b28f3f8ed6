import { createHash, createHmac, randomBytes } from 'node:crypto';

/*
 * Standard Webhooks (https://www.standardwebhooks.com): a secret is `whsec_` and the base64 of its key;
 * a message carries `webhook-id` (the same on every retry), `webhook-timestamp` (unix seconds) and
 * `webhook-signature`, a space-separated list of `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`.
 */

export const SECRET_PREFIX = 'whsec_';

/** A new signing secret: 32 random bytes. */
export const newSigningSecret = (): string => SECRET_PREFIX + randomBytes(32).toString('base64');

const keyOf = (secret: string): Buffer =>
  Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');

/** `v1,<signature>` of one message under one secret. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three headers of a message, signed with each secret given (the current one first). */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => sign(s, id, timestamp, body)).join(' '),
  };
}

/** A deterministic `msg_` id: the same subscription and event always make the same message. */
export const messageIdOf = (subscriptionId: string, key: string): string =>
  `msg_${createHash('sha256').update(`${subscriptionId}\0${key}`).digest('base64url').slice(0, 26)}`;

/** A UUID made from a text (the form of version 5): a record's event id that a repeat makes again. */
export function uuidOf(text: string): string {
  const h = createHash('sha256').update(text).digest();
  h[6] = (h[6]! & 0x0f) | 0x50;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
