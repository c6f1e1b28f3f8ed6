import type { FastifyRequest } from 'fastify';
import { type CallOptions, ProviderError } from '../../src/clients/provider-http.ts';
import { handleCommand } from '../../src/command.ts';
import type { Config } from '../../src/config.ts';
import { SEARCH_CREDITS, type SearchOperation } from '../../src/credits/prices.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { reserveCredits } from '../../src/domain/accounts/credits.ts';
import { organizationStream } from '../../src/domain/accounts/streams.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata } from '../../src/http/commands.ts';
import { randomId } from '../../src/ids.ts';
import { settleCredits } from '../accounts/credits.ts';
import { requireAdapter, type SearchAdapters, searchAdaptersFrom } from './adapters.ts';
import { cacheKey, SearchCache } from './cache.ts';

/** What the search routes and the column executors share: the providers and the cache. */
export interface SearchDeps {
  adapters: SearchAdapters;
  cache: SearchCache;
}

declare module '../../src/deps.ts' {
  interface ServiceParts {
    /** The search and LinkedIn data providers of this service's configuration, and their cache. */
    search: SearchDeps;
  }
}

/** Made once per service (app/parts.ts): one outbound client and one cache for routes and column runs. */
export function searchDepsFrom(deps: { config: Config; pool: Pool }): SearchDeps {
  return {
    adapters: searchAdaptersFrom(deps.config),
    cache: new SearchCache(deps.pool, deps.config.SEARCH_CACHE_TTL_SECONDS),
  };
}

/** One question to a provider: what it is (its price and cache key) and how to ask it. */
export interface Lookup<T> {
  operation: SearchOperation;
  /** The provider's name, as answers show it (`searxng`). */
  provider: string;
  /** What was asked, as the cache key sees it. */
  request: object;
  call(options: CallOptions): Promise<T>;
}

export interface Looked<T> {
  value: T;
  cached: boolean;
}

/** The organization's cached answer, else the provider's (kept for the next time). */
export async function cachedLookup<T>(
  search: SearchDeps,
  organizationId: string,
  now: () => Date,
  lookup: Lookup<T>,
  options: CallOptions = {},
): Promise<Looked<T>> {
  const key = cacheKey(lookup.operation, { provider: lookup.provider, ...lookup.request });
  const hit = await search.cache.get(organizationId, key, now());
  if (hit) return { value: hit.value as T, cached: true };
  const value = await lookup.call(options);
  await search.cache.put(organizationId, key, lookup.provider, value, now());
  return { value, cached: false };
}

/** A provider's failure as our problem answer; a 429's wait passed on as our Retry-After. */
export function providerProblem(error: ProviderError): AppError {
  switch (error.code) {
    case 'provider_unavailable':
      return new AppError('provider_unavailable', error.message);
    case 'provider_rate_limited': {
      const seconds = String(error.retryAfterSeconds);
      return new AppError('provider_rate_limited', error.message, {
        retryAfterSeconds: error.retryAfterSeconds,
        headers: { 'retry-after': seconds },
      });
    }
    case 'provider_timeout':
      return new AppError('provider_timeout', error.message);
    case 'provider_bad_response':
      return new AppError('provider_bad_response', error.message);
    case 'provider_rejected':
      return new AppError('provider_rejected', error.message);
    case 'provider_error':
      return new AppError('provider_error', error.message);
    default: {
      const never: never = error.code;
      return never;
    }
  }
}

/**
 * A search through the API: from the organization's cache for free, else paid for. The price is
 * reserved on the organization stream before the provider is asked (so concurrent searches cannot
 * spend the same credits: 402 insufficient_credits when the balance does not cover it), then charged
 * when the provider answered, or refunded when it failed. The call's id (`srch_…`) stands where a
 * run's id stands in the ledger.
 */
export async function paidLookup<T>(
  deps: ServiceDeps,
  request: FastifyRequest,
  lookup: Lookup<T>,
): Promise<Looked<T>> {
  const search = deps.parts.search;
  const { organizationId } = principalOf(request);
  const price = SEARCH_CREDITS[lookup.operation];
  let callId: string | undefined;
  try {
    return await cachedLookup(search, organizationId, deps.clock, {
      ...lookup,
      call: async (options) => {
        const runId = randomId('srch');
        await handleCommand({
          store: deps.store,
          stream: organizationStream.name(organizationId),
          decider: reserveCredits,
          command: { organizationId, runId, rows: 1, creditsPerRow: price },
          metadata: eventMetadata(request),
          now: deps.clock(),
          maxRetries: 200,
        });
        callId = runId;
        const value = await lookup.call(options);
        callId = undefined;
        await settleCredits(deps.store, { organizationId, runId, charged: price, refunded: 0 });
        return value;
      },
    });
  } catch (error) {
    if (callId !== undefined) {
      await settleCredits(deps.store, { organizationId, runId: callId, charged: 0, refunded: price });
    }
    throw error instanceof ProviderError ? providerProblem(error) : error;
  }
}

/**
 * A route's search: the provider it needs (503 when it is not configured), asked through
 * `paidLookup`; the answer names the provider.
 */
export async function providerLookup<K extends keyof SearchAdapters, T>(
  deps: ServiceDeps,
  request: FastifyRequest,
  which: K,
  ask: (provider: NonNullable<SearchAdapters[K]>) => Omit<Lookup<T>, 'provider'>,
): Promise<Looked<T> & { provider: string }> {
  const provider = requireAdapter(deps.parts.search.adapters, which);
  const looked = await paidLookup(deps, request, { ...ask(provider), provider: provider.name });
  return { ...looked, provider: provider.name };
}
