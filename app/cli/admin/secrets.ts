import type { Command } from 'commander';
import { CliError } from '../errors.ts';
import { printLines } from '../output.ts';
import { withAdmin } from './context.ts';
import { toJson } from './format.ts';

export function registerSecretAdminCommands(admin: Command): void {
  const secrets = admin.command('secrets').description('workspace secrets: the master key (never a value)');

  secrets
    .command('rotate-master-key')
    .description(
      're-wrap every data key under a new master key while the service runs: with the key file, a new ' +
        'key is generated; with SECRETS_MASTER_KEY, that key is the new one and SECRETS_PREVIOUS_MASTER_KEYS the old',
    )
    .action(async (_options: unknown, command: Command) =>
      withAdmin(command, async (ctx) => {
        // Loaded on use, like the other admin actions.
        const [{ MasterKeySource }, { rotateMasterKey }] = await Promise.all([
          import('../../../services/secrets/master-key.ts'),
          import('../../../services/secrets/rotation.ts'),
        ]);
        const source = new MasterKeySource(ctx.config);
        const report = await rotateMasterKey(ctx.pool, source);
        const left = Object.entries(report.unknown);
        if (ctx.json) printLines(toJson(report));
        else {
          const where = report.source === 'file' ? `the key file ${source.path}` : 'SECRETS_MASTER_KEY';
          printLines(
            `master key ${report.masterKeyId} (${where}): ${report.rewrapped} data key(s) re-wrapped`,
          );
        }
        if (left.length > 0) {
          const list = left.map(([id, n]) => `${n} under ${id}`).join(', ');
          throw new CliError(
            `data keys under master keys this command was not given are still unreadable: ${list}; ` +
              'give the old key in SECRETS_PREVIOUS_MASTER_KEYS and run it again',
          );
        }
      }),
    );
}
