import { linkedinCommands } from '../../commands/linkedin/index.ts';
import { linkedinQueries } from '../../queries/linkedin/index.ts';
import type { Feature } from '../../src/feature.ts';

/**
 * LinkedIn data (docs/search-and-linkedin.md): the linkedin sender accounts and their daily limits,
 * and searches, profiles and posts through the configured provider adapter. No stream of its own.
 */
export const linkedinFeature: Feature = {
  name: 'linkedin',
  streams: [],
  commands: linkedinCommands,
  queries: linkedinQueries,
  projections: [],
};
