import { searchCommands } from '../../commands/search/index.ts';
import type { Feature } from '../../src/feature.ts';

/**
 * Public-web, company and people searches through provider adapters (docs/search-and-linkedin.md).
 * No stream of its own: a search's only lasting effect is its credits, on the organization stream;
 * its answers are kept in the search cache table (a migration), not in a read model.
 */
export const searchFeature: Feature = {
  name: 'search',
  streams: [],
  commands: searchCommands,
  queries: [],
  projections: [],
};
