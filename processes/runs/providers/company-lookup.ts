import { PROVIDER_CREDITS } from '../../../src/credits/prices.ts';
import { companyLookup } from '../../../src/domain/columns/config/search-providers.ts';
import { searchExecutors } from '../executors/search-lookups.ts';
import { columnProvider, configOf } from './provider.ts';

/** company_lookup: a search or LinkedIn data lookup per row, from the organization's cache or the provider (a cached row is free). */
export const companyLookupProvider = columnProvider({
  name: 'company_lookup',
  ...configOf(companyLookup),
  price: () => PROVIDER_CREDITS.company_lookup,
  executor: (deps) => searchExecutors(deps.search).company_lookup,
});
