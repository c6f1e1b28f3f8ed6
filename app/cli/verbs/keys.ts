import { type Command, Option } from 'commander';
import { SCOPES } from '../../../src/auth/scopes.ts';
import { clientFor } from '../http.ts';
import { emit, formatRecord, formatTable } from '../output.ts';

interface KeyListing {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revoked: boolean;
}

/** `stk keys list | create | revoke`. */
export function registerKeyCommands(program: Command): void {
  const keys = program.command('keys').description("manage the organization's API keys");

  keys
    .command('list')
    .description('list the keys (never their secrets)')
    .action(async (_options: unknown, command: Command) => {
      const answer = await (await clientFor(command)).get<{ keys: KeyListing[] }>('/api/keys');
      emit(command, answer, () =>
        formatTable(answer.keys, [
          { header: 'ID', value: (k) => k.id },
          { header: 'NAME', value: (k) => k.name },
          { header: 'STATUS', value: (k) => (k.revoked ? 'revoked' : 'active') },
          { header: 'CREATED', value: (k) => k.createdAt },
          { header: 'LAST USED', value: (k) => k.lastUsedAt },
          { header: 'SCOPES', value: (k) => k.scopes.join(' ') },
        ]),
      );
    });

  keys
    .command('create')
    .description('issue a key with the given scopes (at most those of the key in use)')
    .requiredOption('--name <name>', 'a name to recognise the key by')
    .addOption(
      new Option('--scope <scope...>', 'a scope to grant (repeat, or list several)')
        .choices(SCOPES)
        .makeOptionMandatory(),
    )
    .action(async (options: { name: string; scope: string[] }, command: Command) => {
      const answer = await (await clientFor(command)).post<{
        apiKey: string;
        keyMetadata: { id: string; name: string; scopes: string[] };
      }>('/api/keys', { name: options.name, scopes: options.scope });
      emit(command, answer, () =>
        [
          formatRecord([
            ['Key', `${answer.keyMetadata.name} (${answer.keyMetadata.id})`],
            ['Scopes', answer.keyMetadata.scopes.join(' ')],
          ]),
          `API key (shown once, keep it safe): ${answer.apiKey}`,
        ].join('\n'),
      );
    });

  keys
    .command('revoke')
    .description('revoke a key; it is refused from its next request on')
    .argument('<id>', 'the key id (as in `stk keys list`)')
    .action(async (id: string, _options: unknown, command: Command) => {
      await (await clientFor(command)).delete(`/api/keys/${encodeURIComponent(id)}`);
      emit(command, { id, revoked: true }, () => `Revoked key ${id}.`);
    });
}
