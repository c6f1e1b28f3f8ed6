import { PROVIDER_CREDITS } from '../../../src/credits/prices.ts';
import { syncToTable } from '../../../src/domain/columns/config/sync-to-table.ts';
import { syncToTableExecutor } from '../executors/sync-to-table.ts';
import { columnProvider, configOf } from './provider.ts';

/** sync_to_table: writes rows of another table of the organization (no outside cost). */
export const syncToTableProvider = columnProvider({
  name: 'sync_to_table',
  ...configOf(syncToTable),
  price: () => PROVIDER_CREDITS.sync_to_table,
  executor: () => syncToTableExecutor,
});
