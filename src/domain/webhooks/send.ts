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
 * POSTs one signed message; throws on a transport error or the timeout. Redirects are not followed
 * (a 3xx is a failed attempt). The one place a delivery touches the network: the SSRF guard's client
 * (src/net/) replaces this body when it lands.
 */
export async function postMessage(
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<Response> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'stk-webhooks/1', ...headers },
    body,
    redirect: 'manual',
    signal: AbortSignal.any([signal, AbortSignal.timeout(DELIVERY_TIMEOUT_MS)]),
  });
  return {
    statusCode: response.status,
    retryAfter: response.headers.get('retry-after') ?? undefined,
    excerpt: await excerptOf(response),
  };
}

/** The first KB of a body; the rest is not read (the connection is let go). */
async function excerptOf(response: globalThis.Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return truncate(Buffer.concat(chunks).toString('utf8'));
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
