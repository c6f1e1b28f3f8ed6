import type { Command } from 'commander';
import { UsageError } from '../errors.ts';
import { clientFor } from '../http.ts';
import { emit, formatRecord, formatTable } from '../output.ts';
import { fetchPages, type PageOptions, pageOptions, withMore } from '../pages.ts';
import { promptHidden, readStdin } from '../prompt.ts';

interface Secret {
  name: string;
  version: number;
  maskedValue: string;
  createdAt: string;
  updatedAt: string;
  lastUsedAt: string | null;
}

const secretPath = (name: string) => `/api/secrets/${encodeURIComponent(name)}`;

/** The value to store: typed on the terminal (not echoed), or all of stdin when it is not a terminal. */
async function valueToSet(): Promise<string> {
  const value = process.stdin.isTTY
    ? await promptHidden('Value (not shown): ', 'pipe the value on stdin')
    : await readStdin();
  if (value === '') throw new UsageError('the value is empty: pipe it on stdin or type it when asked');
  return value;
}

/**
 * `stk secrets list | set | delete`. A value goes in through stdin or a hidden prompt only: an
 * argument would stay in the shell's history and in every process listing.
 */
export function registerSecretCommands(program: Command): void {
  const secrets = program
    .command('secrets')
    .description("the organization's workspace secrets ({{secrets.name}}); values are never shown");

  pageOptions(secrets.command('list').description('list secrets by name, values masked'), 'secrets').action(
    async (options: PageOptions, command: Command) => {
      const page = await fetchPages<Secret>(await clientFor(command), '/api/secrets', options);
      emit(command, page, () =>
        withMore(
          formatTable(page.data, [
            { header: 'NAME', value: (s) => s.name },
            { header: 'VERSION', value: (s) => s.version },
            { header: 'VALUE', value: (s) => s.maskedValue },
            { header: 'UPDATED', value: (s) => s.updatedAt },
            { header: 'LAST USED', value: (s) => s.lastUsedAt },
          ]),
          page.nextCursor,
        ),
      );
    },
  );

  secrets
    .command('set')
    .description('create a secret or replace its value, read from stdin or asked for (never an argument)')
    .argument('<name>', 'letters, digits and _, as {{secrets.name}} names it')
    .action(async (name: string, _options: unknown, command: Command) => {
      const client = await clientFor(command);
      const secret = await client.put<Secret>(secretPath(name), { value: await valueToSet() });
      emit(command, secret, () =>
        formatRecord([
          ['Secret', secret.name],
          ['Version', secret.version],
          ['Value', secret.maskedValue],
          ['Updated', secret.updatedAt],
        ]),
      );
    });

  secrets
    .command('delete')
    .description('delete a secret; its values can no longer be decrypted from anywhere')
    .argument('<name>')
    .action(async (name: string, _options: unknown, command: Command) => {
      await (await clientFor(command)).delete(secretPath(name));
      emit(command, { name, deleted: true }, () => `Deleted secret ${name}.`);
    });
}
