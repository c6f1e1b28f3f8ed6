import { secretCommands } from '../../commands/secrets/index.ts';
import { secretsProjection } from '../../projections/secrets/secrets.ts';
import { secretQueries } from '../../queries/secrets/index.ts';
import { secretStream } from '../../src/domain/secrets/secret-state.ts';
import type { Feature } from '../../src/feature.ts';

/**
 * Workspace secrets: write-only values, encrypted per version under data keys kept outside the log,
 * resolved by the runs that use them (vault.ts).
 */
export const secretsFeature: Feature = {
  name: 'secrets',
  streams: [secretStream],
  commands: secretCommands,
  queries: secretQueries,
  projections: [secretsProjection],
};
