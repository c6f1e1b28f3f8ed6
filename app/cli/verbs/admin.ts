import type { Command } from 'commander';
import { registerCreditCommands } from '../admin/credits.ts';
import { registerEventCommands } from '../admin/events.ts';
import { registerOperatorCommands } from '../admin/operators.ts';
import { registerProjectionCommands } from '../admin/projections.ts';
import { registerSecretAdminCommands } from '../admin/secrets.ts';
import { registerSyncCommands } from '../admin/sync.ts';

/**
 * `stk admin`: the operator's side. It opens the service's database and event store directly
 * (DATABASE_URL / EVENTSTORE_URL, or the embedded default under DATA_DIR), not the HTTP API, so it
 * needs no API key; actions are audited under --actor (default STK_ADMIN_ACTOR or user@host).
 */
export function registerAdminCommands(program: Command): void {
  const admin = program
    .command('admin')
    .description(
      'operator commands: projections, the event log, content sync, the secrets master key, credits, console operators (direct database access)',
    )
    .option('--actor <name>', 'who is acting, for the audit (default: STK_ADMIN_ACTOR or user@host)');
  registerProjectionCommands(admin);
  registerEventCommands(admin);
  registerSyncCommands(admin);
  registerSecretAdminCommands(admin);
  registerCreditCommands(admin);
  registerOperatorCommands(admin);
}
