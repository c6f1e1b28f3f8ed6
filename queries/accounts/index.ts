import { creditLedgerRoute } from './credit-ledger.ts';
import { getApiKeyRoute } from './get-api-key.ts';
import { listApiKeysRoute } from './list-api-keys.ts';
import { meRoute } from './me.ts';
import { getUserRoute, listUsersRoute } from './users.ts';

export const accountQueries = [
  meRoute,
  listApiKeysRoute,
  getApiKeyRoute,
  listUsersRoute,
  getUserRoute,
  creditLedgerRoute,
];
