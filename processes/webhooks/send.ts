import type { Config } from '../../src/config.ts';
import { addressPolicyFrom, OutboundClient } from '../../src/net/index.ts';

/** What a receiver answered to one attempt. */
export interface Response {
  statusCode: number;
  retryAfter: string | undefined;
  /** At most EXCERPT_BYTES of the body. */
  excerpt: string;
}

/** A receiver has this long to answer in full, headers and body. */
export const DELIVERY_TIMEOUT_MS = 15_000;
const EXCERPT_BYTES = 1024;
/**
 * The per-host token bucket of deliveries. Their load on a receiver is bounded by the subscription's
 * 4 attempts at a time already; this is a backstop, far above the column runs' politeness rate.
 */
const DELIVERIES_PER_SECOND_PER_HOST = 10_000;

declare module '../../src/deps.ts' {
  interface ServiceParts {
    /** The service's one client for webhook deliveries: its connections are pooled. */
    deliveryClient: OutboundClient;
  }
}

/** The client deliveries go through, made once per service (app/parts.ts). */
export const deliveryClient = (config: Pick<Config, 'ALLOW_PRIVATE_NETWORK_TARGETS'>): OutboundClient =>
  new OutboundClient({
    policy: addressPolicyFrom(config),
    rateLimit: { perSecond: DELIVERIES_PER_SECOND_PER_HOST },
  });

/**
 * POSTs one signed message, once: the SSRF guard checks the address after DNS resolution, redirects
 * are not followed (a 3xx is a failed attempt), at most 1 KB of the body is read. A refused address,
 * a timeout or a failed connection throws, with the guard's code in the message.
 */
export async function postMessage(
  client: OutboundClient,
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<Response> {
  const result = await client.request({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'stk-webhooks/1', ...headers },
    body,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    maxBytes: EXCERPT_BYTES,
    followRedirects: false,
    maxAttempts: 1,
    signal,
  });
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  const { response } = result;
  return {
    statusCode: response.status,
    retryAfter: response.headers['retry-after'],
    excerpt: truncate(response.body.toString('utf8')),
  };
}

/** At most EXCERPT_BYTES of UTF-8, not cutting a character. */
export function truncate(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= EXCERPT_BYTES) return text;
  return bytes
    .subarray(0, EXCERPT_BYTES)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}
