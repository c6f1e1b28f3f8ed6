import { PROVIDER_CREDITS } from '../../../src/credits/prices.ts';
import { linkedinProfile } from '../../../src/domain/columns/config/search-providers.ts';
import { searchExecutors } from '../executors/search-lookups.ts';
import { columnProvider, configOf } from './provider.ts';

/** linkedin_profile: a search or LinkedIn data lookup per row, from the organization's cache or the provider (a cached row is free). */
export const linkedinProfileProvider = columnProvider({
  name: 'linkedin_profile',
  ...configOf(linkedinProfile),
  price: () => PROVIDER_CREDITS.linkedin_profile,
  executor: (deps) => searchExecutors(deps.search).linkedin_profile,
});
