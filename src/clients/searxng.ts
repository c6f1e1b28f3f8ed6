import { z } from 'zod';
import {
  type CallOptions,
  callProvider,
  type ProviderEndpoint,
  ProviderError,
  shaped,
} from './provider-http.ts';
import type { TimeRange } from './vocabulary.ts';

export interface WebSearchRequest {
  query: string;
  /** SearXNG's category: `general` for the web, `news` for news. */
  category: 'general' | 'news';
  limit: number;
  language?: string;
  timeRange?: TimeRange;
}

export interface WebResult {
  title: string;
  url: string;
  snippet: string;
  publishedAt?: string;
  /** Who published it: the result's host name. */
  source: string;
}

/** The parts of SearXNG's JSON answer (`format=json`) this service reads; the rest is ignored. */
const SearxngAnswer = z.object({
  results: z.array(
    z.object({
      url: z.string().nullish(),
      title: z.string().nullish(),
      content: z.string().nullish(),
      publishedDate: z.string().nullish(),
    }),
  ),
});

/** Pages asked for at most: SearXNG answers a page of 10 to 30 results, whatever its engines give. */
const MAX_PAGES = 5;

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
};

const isoOf = (date: string | null | undefined) => {
  if (!date) return undefined;
  const ms = Date.parse(date);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
};

/**
 * Web and news search through a SearXNG instance's JSON API: `GET /search?q=…&format=json` with its
 * categories, language and time_range, page after page until `limit` distinct results are in or a
 * page brings nothing new.
 */
export function searxng(endpoint: ProviderEndpoint) {
  return {
    name: 'searxng',
    async search(request: WebSearchRequest, options: CallOptions = {}): Promise<WebResult[]> {
      const results = new Map<string, WebResult>();
      for (let page = 1; page <= MAX_PAGES && results.size < request.limit; page++) {
        const answer = await callProvider(
          endpoint,
          {
            path: 'search',
            query: {
              q: request.query,
              format: 'json',
              categories: request.category,
              language: request.language,
              time_range: request.timeRange,
              pageno: page,
            },
          },
          options,
        );
        // SearXNG has no "no such record": a 404 is a base URL that is not the instance's.
        if (answer.status === 404)
          throw new ProviderError(
            'provider_error',
            `${endpoint.name} answered HTTP 404: is SEARXNG_URL its base URL?`,
          );
        const before = results.size;
        for (const r of shaped(SearxngAnswer, answer, endpoint).results) {
          if (!r.url || !/^https?:\/\//i.test(r.url) || results.has(r.url)) continue;
          const publishedAt = isoOf(r.publishedDate);
          results.set(r.url, {
            title: r.title ?? r.url,
            url: r.url,
            snippet: r.content ?? '',
            ...(publishedAt ? { publishedAt } : {}),
            source: hostOf(r.url),
          });
        }
        if (results.size === before) break;
      }
      return [...results.values()].slice(0, request.limit);
    },
  };
}

export type WebSearchProvider = ReturnType<typeof searxng>;
