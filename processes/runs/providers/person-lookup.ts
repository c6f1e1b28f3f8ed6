import { PROVIDER_CREDITS } from '../../../src/credits/prices.ts';
import { personLookup } from '../../../src/domain/columns/config/search-providers.ts';
import { searchExecutors } from '../executors/search-lookups.ts';
import { columnProvider, configOf } from './provider.ts';

/** person_lookup: a search or LinkedIn data lookup per row, from the organization's cache or the provider (a cached row is free). */
export const personLookupProvider = columnProvider({
  name: 'person_lookup',
  ...configOf(personLookup),
  price: () => PROVIDER_CREDITS.person_lookup,
  executor: (deps) => searchExecutors(deps.search).person_lookup,
});
