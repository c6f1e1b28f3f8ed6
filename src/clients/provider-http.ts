import type { z } from 'zod';
import { parseRetryAfter } from '../content-api/retry.ts';
import type { OutboundClient } from '../net/outbound.ts';

/**
 * What went wrong with an outside provider, as one of our codes (src/errors.ts): the routes answer it
 * as a problem, the column executors as the row's error. The message never quotes the provider's
 * answer to a refused key (some quote part of it back) and never holds the key itself.
 */
export type ProviderErrorCode =
  | 'provider_unavailable'
  | 'provider_rate_limited'
  | 'provider_error'
  | 'provider_bad_response'
  | 'provider_timeout'
  | 'provider_rejected';

export class ProviderError extends Error {
  constructor(
    readonly code: ProviderErrorCode,
    message: string,
    /** provider_rate_limited: seconds the provider asked us to wait, passed on as our Retry-After. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** What a 429 without Retry-After is answered with: a minute is what the providers' own limits reset by. */
export const DEFAULT_RETRY_AFTER_S = 60;

/** A provider's answers can be large (a page of person records); still bounded. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/** One configured provider: where it is, how it authenticates, and through which client. */
export interface ProviderEndpoint {
  /** Its name in messages: `SearXNG`, `People Data Labs`, `Unipile`. */
  name: string;
  baseUrl: string;
  /** Authentication headers (their values are secrets: marked sensitive for the outbound client). */
  authHeaders: Readonly<Record<string, string>>;
  client: OutboundClient;
  timeoutMs: number;
  /** What a 403 most likely means for this provider, when it is not a refused key. */
  forbiddenHint?: string;
}

export interface ProviderRequest {
  path: string;
  query?: Readonly<Record<string, string | number | undefined>>;
  method?: 'GET' | 'POST';
  body?: unknown;
}

/** Per call: the caller's cancellation, and where to count attempts (a run row's meta shows them). */
export interface CallOptions {
  signal?: AbortSignal;
  tally?: { attempts: number };
}

export type ProviderAnswer = { status: number; body: unknown };

/** The error text a provider put in its JSON error body, short and on one line (for 400 and 422 only). */
function providerMessage(body: unknown): string | undefined {
  const b = body as {
    error?: { message?: unknown } | string;
    detail?: unknown;
    title?: unknown;
    message?: unknown;
  };
  const candidates = [
    typeof b?.error === 'object' ? b.error?.message : b?.error,
    b?.detail,
    b?.message,
    b?.title,
  ];
  const text = candidates.find((c): c is string => typeof c === 'string' && c.trim() !== '');
  return text?.replace(/\s+/g, ' ').slice(0, 300);
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/**
 * One request to a provider through the guarded outbound client (its retries of 429/502/503/504 with
 * Retry-After honoured up to a short wait, its timeout per attempt, its body cap). Answers a 2xx or a
 * 404 with its parsed JSON body (a 404 is the provider's "no such record", the caller decides what it
 * means); every other outcome is a ProviderError.
 */
export async function callProvider(
  endpoint: ProviderEndpoint,
  request: ProviderRequest,
  options: CallOptions = {},
): Promise<ProviderAnswer> {
  const url = new URL(
    request.path,
    endpoint.baseUrl.endsWith('/') ? endpoint.baseUrl : `${endpoint.baseUrl}/`,
  );
  for (const [name, value] of Object.entries(request.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  const headers: Record<string, string> = { accept: 'application/json', ...endpoint.authHeaders };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const result = await endpoint.client.request({
    url: url.href,
    method: request.method ?? 'GET',
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    timeoutMs: endpoint.timeoutMs,
    maxBytes: MAX_BODY_BYTES,
    sensitiveHeaders: Object.keys(endpoint.authHeaders),
    // A provider that redirects elsewhere would take its key along: its base URL is what was configured.
    followRedirects: false,
    signal: options.signal,
  });
  if (options.tally) options.tally.attempts += result.meta.attempts;
  const name = endpoint.name;
  if (!result.ok) {
    if (result.error.code === 'timeout')
      throw new ProviderError('provider_timeout', `${name} did not answer within ${endpoint.timeoutMs} ms`);
    if (result.error.code === 'target_not_allowed')
      throw new ProviderError(
        'provider_error',
        `${name}'s configured address is refused by the outbound guard`,
      );
    throw new ProviderError('provider_error', `${name} cannot be reached (${result.error.code})`);
  }
  const { status } = result.response;
  const text = result.response.body.toString('utf8');
  const parsed = parseJson(text);
  if (status === 429) {
    const waitMs = parseRetryAfter(result.response.headers['retry-after']);
    const seconds = waitMs === undefined ? DEFAULT_RETRY_AFTER_S : Math.max(1, Math.ceil(waitMs / 1000));
    throw new ProviderError('provider_rate_limited', `${name} asks to slow down (HTTP 429)`, seconds);
  }
  if (status === 401 || status === 403) {
    const hint = status === 403 && endpoint.forbiddenHint ? `: ${endpoint.forbiddenHint}` : '';
    throw new ProviderError('provider_error', `${name} refused the configured key (HTTP ${status})${hint}`);
  }
  if (status === 400 || status === 422) {
    const said = parsed.ok ? providerMessage(parsed.value) : undefined;
    throw new ProviderError(
      'provider_rejected',
      `${name} refused the request (HTTP ${status})${said ? `: ${said}` : ''}`,
    );
  }
  if ((status < 200 || status > 299) && status !== 404) {
    throw new ProviderError('provider_error', `${name} answered HTTP ${status}`);
  }
  if (result.response.truncated)
    throw new ProviderError('provider_bad_response', `${name} answered more than ${MAX_BODY_BYTES} bytes`);
  if (!parsed.ok) {
    // A 404 from something that is not the provider's API (a proxy, a wrong base URL) is not JSON.
    throw new ProviderError(
      'provider_bad_response',
      `${name} answered HTTP ${status} with a body that is not JSON`,
    );
  }
  return { status, body: parsed.value };
}

/** A provider's body read as its documented shape; anything else is provider_bad_response. */
export function shaped<T>(schema: z.ZodType<T>, answer: ProviderAnswer, endpoint: { name: string }): T {
  const parsed = schema.safeParse(answer.body);
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues[0]?.path.join('.') || 'the body';
  throw new ProviderError(
    'provider_bad_response',
    `${endpoint.name} answered a body its API does not document (at ${where})`,
  );
}
