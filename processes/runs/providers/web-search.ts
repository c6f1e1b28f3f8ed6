import { PROVIDER_CREDITS } from '../../../src/credits/prices.ts';
import { webSearch } from '../../../src/domain/columns/config/search-providers.ts';
import { searchExecutors } from '../executors/search-lookups.ts';
import { columnProvider, configOf } from './provider.ts';

/** web_search: a search or LinkedIn data lookup per row, from the organization's cache or the provider (a cached row is free). */
export const webSearchProvider = columnProvider({
  name: 'web_search',
  ...configOf(webSearch),
  price: () => PROVIDER_CREDITS.web_search,
  executor: (deps) => searchExecutors(deps.search).web_search,
});
