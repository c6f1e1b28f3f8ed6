import { accountCommands } from '../../commands/accounts/index.ts';
import { apiKeysProjection } from '../../projections/accounts/api-keys.ts';
import { creditLedgerProjection } from '../../projections/accounts/credit-ledger.ts';
import { organizationsProjection } from '../../projections/accounts/organizations.ts';
import { usersProjection } from '../../projections/accounts/users.ts';
import { accountQueries } from '../../queries/accounts/index.ts';
import { accountStreams } from '../../src/domain/accounts/streams.ts';
import type { Feature } from '../../src/feature.ts';

/** Accounts: bootstrap, organizations and their credits, users, API keys. */
export const accountsFeature: Feature = {
  name: 'accounts',
  streams: accountStreams,
  commands: accountCommands,
  queries: accountQueries,
  projections: [apiKeysProjection, organizationsProjection, usersProjection, creditLedgerProjection],
};
