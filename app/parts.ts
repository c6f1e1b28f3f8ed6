import { AttemptLog } from '../processes/webhooks/attempt-log.ts';
import { PruneClock } from '../processes/webhooks/history-retention.ts';
import { deliveryClient } from '../processes/webhooks/send.ts';
import { PageCache } from '../queries/content/site/page-cache.ts';
import { TableColumnsCache } from '../queries/rows/table-columns.ts';
import { AuthState } from '../services/accounts/authenticator.ts';
import { ConsoleRebuilds } from '../services/console/rebuilds.ts';
import { articleWriter } from '../services/content/article-writer.ts';
import { searchDepsFrom } from '../services/search/lookup.ts';
import { SecretsVault } from '../services/secrets/vault.ts';
import type { ServiceDeps, ServiceParts } from '../src/deps.ts';

/**
 * The features' parts of one service, each made once here and owned by the service object
 * (src/deps.ts says why). A part a feature declares and this function does not make fails to compile.
 */
export function makeServiceParts(deps: Pick<ServiceDeps, 'config' | 'store' | 'pool'>): ServiceParts {
  const { config, store, pool } = deps;
  return {
    auth: new AuthState(pool),
    vault: new SecretsVault({ config, store, pool }),
    search: searchDepsFrom({ config, pool }),
    articleWriter: articleWriter(store),
    pageCache: new PageCache(),
    tableColumns: new TableColumnsCache(),
    attemptLog: new AttemptLog(store),
    deliveryClient: deliveryClient(config),
    historyPrune: new PruneClock(),
    consoleRebuilds: new ConsoleRebuilds(store),
  };
}
