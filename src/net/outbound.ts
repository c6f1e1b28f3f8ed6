import { Agent } from 'undici';
import { defaultRetryPolicy, parseRetryAfter, type RetryPolicy, retryDelay } from '../content-api/retry.ts';
import { type AddressPolicy, guardedLookup } from './address-guard.ts';
import { type Hop, hop, type OutboundErrorCode, type OutboundResponse } from './hop.ts';
import { HostRateLimit, type HostRateLimitOptions } from './host-rate-limit.ts';
import { sleepUnlessAborted } from './sleep.ts';

export type { OutboundErrorCode, OutboundResponse } from './hop.ts';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_BYTES = 1024 * 1024;
export const DEFAULT_MAX_ATTEMPTS = 3;
export const DEFAULT_MAX_REDIRECTS = 5;

/** The server is busy or a gateway failed: worth another attempt. 500 is not: the request itself broke it. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
// Dropped when a redirect leaves the origin: a third party must not receive the caller's credentials.
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];

export interface OutboundRequest {
  url: string;
  method: string;
  headers?: Readonly<Record<string, string>>;
  body?: string | Buffer;
  /** Per attempt, redirects and reading the body included. */
  timeoutMs?: number;
  /** The most body bytes read; past it the response is cut and `truncated` is set. */
  maxBytes?: number;
  /** false: a 3xx is the answer (webhooks never follow). */
  followRedirects?: boolean;
  /**
   * false: a redirect to another origin (scheme, host or port) than the request's is not followed and
   * the request fails with `cross_origin_redirect`; same-origin redirects are still followed. For a
   * request carrying a secret anywhere (URL, headers, body): dropping headers would not keep a secret
   * in the body or the URL from reaching the other origin.
   */
  crossOriginRedirects?: boolean;
  maxRedirects?: number;
  maxAttempts?: number;
  /** Headers besides Authorization and Cookie that hold credentials (a secret went into them). */
  sensitiveHeaders?: readonly string[];
  signal?: AbortSignal;
}

export interface OutboundMeta {
  attempts: number;
  redirects: number;
  durationMs: number;
  /** Time spent waiting: backoff between attempts and the per-host rate limit. */
  waitedMs: number;
}

export type OutboundResult =
  | { ok: true; response: OutboundResponse; meta: OutboundMeta }
  | {
      ok: false;
      error: { code: OutboundErrorCode; message: string; retryable: boolean };
      meta: OutboundMeta;
    };

export interface OutboundClientOptions {
  policy: AddressPolicy;
  /** A shared limiter, or options for this client's own (default 10 requests a second per host). */
  rateLimit?: HostRateLimit | HostRateLimitOptions;
  retry?: Partial<RetryPolicy>;
  /** Milliseconds, for durations. */
  now?: () => number;
}

/**
 * HTTP to user-chosen URLs: every connection passes the address guard after DNS resolution, every
 * redirect hop is a new request checked again, bodies are read up to a cap, and 429/502/503/504 and
 * failed connections are retried with jittered backoff (honouring Retry-After). Never throws for what
 * the network or the server did: the answer says what happened.
 */
export class OutboundClient {
  private readonly agent: Agent;
  private readonly rateLimit: HostRateLimit;
  private readonly retry: RetryPolicy;
  private readonly now: () => number;

  constructor(private readonly options: OutboundClientOptions) {
    this.agent = new Agent({ connect: { lookup: guardedLookup(options.policy) } });
    this.rateLimit =
      options.rateLimit instanceof HostRateLimit
        ? options.rateLimit
        : new HostRateLimit(options.rateLimit ?? { perSecond: 10 });
    this.retry = { ...defaultRetryPolicy, ...options.retry };
    this.now = options.now ?? (() => performance.now());
  }

  async request(request: OutboundRequest): Promise<OutboundResult> {
    const started = this.now();
    const policy = { ...this.retry, attempts: request.maxAttempts ?? DEFAULT_MAX_ATTEMPTS };
    const meta: OutboundMeta = { attempts: 0, redirects: 0, durationMs: 0, waitedMs: 0 };
    const done = (result: OutboundResult): OutboundResult => {
      meta.durationMs = Math.round(this.now() - started);
      return result;
    };
    for (;;) {
      meta.attempts++;
      const result = await this.attempt(request, meta);
      const retryAfter = result.ok ? retryAfterOf(result.response) : undefined;
      const retryable = result.ok ? RETRY_STATUSES.has(result.response.status) : result.error.retryable;
      const delay = retryable ? retryDelay(meta.attempts, retryAfter, policy) : undefined;
      if (delay === undefined) return done(result);
      const slept = await sleepUnlessAborted(policy.sleep, delay, request.signal);
      meta.waitedMs += delay;
      if (!slept) return done(aborted(meta));
    }
  }

  /** Closes the pooled connections. */
  close(): Promise<void> {
    return this.agent.close();
  }

  /**
   * One attempt: the request and the redirects it leads to, within one time budget. The budget counts
   * the time spent on the network only: waiting for a host's rate limit is not the server being slow.
   */
  private async attempt(request: OutboundRequest, meta: OutboundMeta): Promise<OutboundResult> {
    let budgetMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const sensitive = [
      ...CREDENTIAL_HEADERS,
      ...(request.sensitiveHeaders ?? []).map((h) => h.toLowerCase()),
    ];
    let current: Hop = {
      url: request.url,
      method: request.method.toUpperCase(),
      headers: { ...request.headers },
      body: request.body,
    };
    const maxRedirects = request.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
    for (let redirects = 0; ; redirects++) {
      const outcome = await hop(current, {
        agent: this.agent,
        policy: this.options.policy,
        rateLimit: this.rateLimit,
        maxBytes: request.maxBytes ?? DEFAULT_MAX_BYTES,
        budgetMs,
        signal: request.signal,
        now: this.now,
        redirect: (status) => request.followRedirects !== false && REDIRECTS.has(status),
      });
      meta.waitedMs += outcome.waitedMs;
      budgetMs -= outcome.activeMs;
      if (!outcome.ok) return { ok: false, error: outcome.error, meta };
      if (outcome.location === undefined) return { ok: true, response: outcome.response, meta };
      if (redirects >= maxRedirects) {
        return failure('too_many_redirects', `more than ${maxRedirects} redirects`, meta);
      }
      if (budgetMs <= 0) return failure('timeout', 'the redirects took longer than the timeout', meta);
      const next = nextHop(current, outcome.response.status, outcome.location, sensitive);
      if (!next) return failure('invalid_url', 'a redirect points to something that is not a URL', meta);
      if (request.crossOriginRedirects === false) {
        const from = new URL(current.url);
        const to = new URL(next.url);
        if (to.origin !== from.origin) {
          return failure(
            'cross_origin_redirect',
            `${from.host} answered HTTP ${outcome.response.status} with a redirect to another origin ` +
              `(${to.protocol}//${to.host}), not followed: the request carries a secret`,
            meta,
          );
        }
      }
      meta.redirects++;
      current = next;
    }
  }
}

/** Where a redirect leads, and what of the request goes along (RFC 9110 15.4). */
function nextHop(from: Hop, status: number, location: string, sensitive: readonly string[]): Hop | undefined {
  if (!URL.canParse(location, from.url)) return undefined;
  const url = new URL(location, from.url);
  // 303, and 301/302 after a POST as every browser does, become a GET without the body.
  const toGet =
    status === 303 ? from.method !== 'HEAD' : (status === 301 || status === 302) && from.method === 'POST';
  const sameOrigin = url.origin === new URL(from.url).origin;
  const headers = Object.fromEntries(
    Object.entries(from.headers).filter(([name]) => {
      const lower = name.toLowerCase();
      if (toGet && (lower === 'content-type' || lower === 'content-length')) return false;
      return sameOrigin || !sensitive.includes(lower);
    }),
  );
  return { url: url.href, method: toGet ? 'GET' : from.method, headers, body: toGet ? undefined : from.body };
}

function retryAfterOf(response: OutboundResponse): number | undefined {
  if (response.status !== 429 && response.status !== 503) return undefined;
  return parseRetryAfter(response.headers['retry-after']);
}

const failure = (code: OutboundErrorCode, message: string, meta: OutboundMeta): OutboundResult => ({
  ok: false,
  error: { code, message, retryable: false },
  meta,
});

const aborted = (meta: OutboundMeta) => failure('aborted', 'the request was cancelled', meta);
