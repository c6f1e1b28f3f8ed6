import type { LinkedinDataProvider } from '../../src/clients/linkedin-provider.ts';
import type { PeopleDataProvider } from '../../src/clients/people-data.ts';
import { peopleDataLabs } from '../../src/clients/people-data-labs.ts';
import type { ProviderEndpoint } from '../../src/clients/provider-http.ts';
import { searxng, type WebSearchProvider } from '../../src/clients/searxng.ts';
import { unipile } from '../../src/clients/unipile.ts';
import type { Config } from '../../src/config.ts';
import { AppError } from '../../src/errors.ts';
import { OutboundClient } from '../../src/net/outbound.ts';

/** The configured providers; a missing one was not configured. */
export interface SearchAdapters {
  web?: WebSearchProvider;
  peopleData?: PeopleDataProvider;
  linkedin?: LinkedinDataProvider;
}

/** Which variable makes each provider available (named by its 503 answer). */
export const PROVIDER_VARIABLES = {
  web: 'SEARXNG_URL',
  peopleData: 'PEOPLE_DATA_API_KEY',
  linkedin: 'LINKEDIN_DATA_URL and LINKEDIN_DATA_API_KEY',
} as const;

/** Names for messages, and the hint for a SearXNG 403 (its JSON format is off by default). */
const SEARXNG_403 = 'is the json format enabled in its settings.yml (search.formats)?';

/**
 * The providers of a configuration, built once per service (app/parts.ts) (one outbound client: its connection pool
 * and per-host rate limit shared by routes and column runs). Their base URLs are the operator's
 * choice, trusted as LLM_BASE_URL is: private addresses are allowed (a self-hosted SearXNG on the
 * same network is the common case), cloud metadata addresses still refused. Redirects are not
 * followed. A 429 whose Retry-After is longer than two seconds is not waited for but passed on.
 */
export function searchAdaptersFrom(config: Config): SearchAdapters {
  const client = new OutboundClient({
    policy: { allowPrivateNetwork: true },
    rateLimit: { perSecond: config.OUTBOUND_RATE_PER_HOST },
    retry: { maxRetryAfterMs: 2_000 },
  });
  const endpoint = (name: string, baseUrl: string, authHeaders: Record<string, string>, hint?: string) =>
    ({
      name,
      baseUrl,
      authHeaders,
      client,
      timeoutMs: config.SEARCH_PROVIDER_TIMEOUT_MS,
      ...(hint ? { forbiddenHint: hint } : {}),
    }) satisfies ProviderEndpoint;
  return {
    ...(config.SEARXNG_URL ? { web: searxng(endpoint('SearXNG', config.SEARXNG_URL, {}, SEARXNG_403)) } : {}),
    ...(config.PEOPLE_DATA_API_KEY
      ? {
          peopleData: peopleDataLabs(
            endpoint('People Data Labs', config.PEOPLE_DATA_URL, { 'X-Api-Key': config.PEOPLE_DATA_API_KEY }),
          ),
        }
      : {}),
    ...(config.LINKEDIN_DATA_URL && config.LINKEDIN_DATA_API_KEY
      ? {
          linkedin: unipile(
            endpoint('Unipile', config.LINKEDIN_DATA_URL, { 'X-API-KEY': config.LINKEDIN_DATA_API_KEY }),
            config.LINKEDIN_DATA_ACCOUNT_ID,
          ),
        }
      : {}),
  };
}

/** The message of an unconfigured provider: which variable to set. */
export const unconfigured = (which: keyof typeof PROVIDER_VARIABLES) =>
  `No ${which === 'web' ? 'web search' : which === 'peopleData' ? 'people-data' : 'LinkedIn data'} provider is configured: set ${PROVIDER_VARIABLES[which]}.`;

/** The provider a route needs, or 503 provider_unavailable naming the variable to set. */
export function requireAdapter<K extends keyof SearchAdapters>(
  adapters: SearchAdapters,
  which: K,
): NonNullable<SearchAdapters[K]> {
  const adapter = adapters[which];
  if (!adapter) throw new AppError('provider_unavailable', unconfigured(which));
  return adapter as NonNullable<SearchAdapters[K]>;
}
