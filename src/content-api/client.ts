import { listItemsOf } from './mapping.ts';
import {
  defaultRetryPolicy,
  isRetryableStatus,
  parseRetryAfter,
  type RetryPolicy,
  retryDelay,
} from './retry.ts';
import { Semaphore } from './semaphore.ts';

export type ContentApiErrorCode =
  | 'not_found'
  | 'upstream_status'
  | 'upstream_timeout'
  | 'upstream_unreachable'
  | 'upstream_invalid';

/**
 * A failed call to the content API. The message names the path and the status, never the base URL
 * (it may carry credentials) nor the key: it ends up in sync responses and logs.
 */
export class ContentApiError extends Error {
  constructor(
    readonly code: ContentApiErrorCode,
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface ContentApiOptions {
  baseUrl: string;
  apiKey?: string;
  timeoutMs?: number;
  /** Detail requests in flight at once, across every sync of this process. */
  maxConcurrentDetails?: number;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof fetch;
}

export interface ListPage {
  items: unknown[];
  raw: unknown;
}

/** What one call returned: the parsed JSON as it came, for the mapping to read tolerantly. */
export interface Fetched {
  raw: unknown;
}

export const PAGE_SIZE = 100;

/** The content provider's API: list pages of posts and single posts, with timeouts and retries. */
export class ContentApiClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly policy: RetryPolicy;
  private readonly details: Semaphore;
  private readonly fetchFn: typeof fetch;

  constructor(private readonly options: ContentApiOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.policy = { ...defaultRetryPolicy, ...options.retry };
    this.details = new Semaphore(options.maxConcurrentDetails ?? 8);
    this.fetchFn = options.fetch ?? fetch;
  }

  /** One page of `GET /posts?kind=...&limit=...&offset=...`: a bare array or an array under a known key. */
  async listPage(offset: number, kind = 'blog', limit = PAGE_SIZE): Promise<ListPage> {
    const query = new URLSearchParams({ kind, limit: String(limit), offset: String(offset) });
    const path = `/posts?${query}`;
    const { raw } = await this.get(path);
    const items = listItemsOf(raw);
    if (!items)
      throw new ContentApiError('upstream_invalid', `GET ${path}: the answer holds no list of posts`);
    return { items, raw };
  }

  /** `GET /posts/<slug>`; at most `maxConcurrentDetails` of these are in flight at once. */
  getArticle(slug: string): Promise<Fetched> {
    return this.get(`/posts/${encodeURIComponent(slug)}`, this.details);
  }

  private async get(path: string, limiter?: Semaphore): Promise<Fetched> {
    for (let attempt = 1; ; attempt++) {
      let failure: ContentApiError;
      let retryAfterMs: number | undefined;
      const release = limiter ? await limiter.acquire() : undefined;
      try {
        const response = await this.fetchFn(`${this.baseUrl}${path}`, {
          headers: {
            accept: 'application/json',
            ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
          },
          // Covers the body too: a server that sends headers and then stalls still times out.
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        const text = await response.text();
        if (response.ok) return { raw: parseJson(text, path) };
        if (response.status === 404) throw new ContentApiError('not_found', `GET ${path}: not found`, 404);
        failure = new ContentApiError(
          'upstream_status',
          `GET ${path}: HTTP ${response.status}`,
          response.status,
        );
        if (!isRetryableStatus(response.status)) throw failure;
        retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      } catch (error) {
        if (error instanceof ContentApiError) throw error;
        failure = networkFailure(error, path, this.timeoutMs);
      } finally {
        release?.();
      }
      const delay = retryDelay(attempt, retryAfterMs, this.policy);
      if (delay === undefined) throw failure;
      await this.policy.sleep(delay);
    }
  }
}

function parseJson(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ContentApiError('upstream_invalid', `GET ${path}: the answer is not JSON`);
  }
}

function networkFailure(error: unknown, path: string, timeoutMs: number): ContentApiError {
  const name = (error as { name?: string })?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return new ContentApiError('upstream_timeout', `GET ${path}: no answer within ${timeoutMs} ms`);
  }
  // undici hides the reason (ECONNREFUSED, ECONNRESET...) in `cause`; it names no URL or header.
  const cause = (error as { cause?: { code?: string } })?.cause?.code;
  return new ContentApiError('upstream_unreachable', `GET ${path}: ${cause ?? 'network error'}`);
}

/** The client the service's configuration describes, or undefined when CONTENT_API_URL is not set. */
export function contentApiFromConfig(config: {
  CONTENT_API_URL?: string;
  CONTENT_API_KEY?: string;
  CONTENT_API_TIMEOUT_MS: number;
}): ContentApiClient | undefined {
  if (!config.CONTENT_API_URL) return undefined;
  return new ContentApiClient({
    baseUrl: config.CONTENT_API_URL,
    apiKey: config.CONTENT_API_KEY,
    timeoutMs: config.CONTENT_API_TIMEOUT_MS,
  });
}
