import type { Command } from 'commander';
import { saveConfig } from '../config-file.ts';
import { UsageError } from '../errors.ts';
import { ApiClient, clientFor, type GlobalOptions, resolveConnection } from '../http.ts';
import { emit, formatRecord } from '../output.ts';
import { promptHidden, readStdin } from '../prompt.ts';

interface KeyMetadata {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt?: string | null;
}
interface UserData {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
}
interface Organization {
  id: string;
  name: string;
  balance: number;
}
interface BootstrapAnswer {
  apiKey: string;
  userData: UserData;
  keyMetadata: KeyMetadata;
  credits: { organization: Organization };
}
export interface MeAnswer {
  keyMetadata: KeyMetadata;
  userData: UserData;
  organization: Organization;
}

interface BootstrapOptions {
  email: string;
  password?: string;
  passwordStdin?: boolean;
  organizationName: string;
  firstName?: string;
  lastName?: string;
  keyName?: string;
  save: boolean;
}

async function passwordFor(options: BootstrapOptions): Promise<string> {
  if (options.password !== undefined && options.passwordStdin)
    throw new UsageError('give --password or --password-stdin, not both');
  if (options.password !== undefined) return options.password;
  if (options.passwordStdin) return readStdin();
  const password = await promptHidden('Password (at least 12 characters): ');
  const again = await promptHidden('Password again: ');
  if (password !== again) throw new UsageError('the passwords differ');
  return password;
}

const meRecord = (me: MeAnswer) =>
  formatRecord([
    [
      'User',
      `${me.userData.email}${me.userData.firstName ? ` (${[me.userData.firstName, me.userData.lastName].filter(Boolean).join(' ')})` : ''}`,
    ],
    ['Organization', `${me.organization.name} (${me.organization.id})`],
    ['Credits', me.organization.balance],
    ['Key', `${me.keyMetadata.name} (${me.keyMetadata.id})`],
    ['Scopes', me.keyMetadata.scopes.join(' ')],
  ]);

/** `stk bootstrap`, `stk login`, `stk whoami`. */
export function registerAccountCommands(program: Command): void {
  program
    .command('bootstrap')
    .description('create a user, an organization and an API key; the key is saved for later commands')
    .requiredOption('--email <email>', 'email address of the new user')
    .requiredOption('--organization-name <name>', 'name of the new organization')
    .option('--password <password>', 'password (asked on the terminal when omitted)')
    .option('--password-stdin', 'read the password from standard input')
    .option('--first-name <name>', 'first name')
    .option('--last-name <name>', 'last name')
    .option('--key-name <name>', 'name of the first API key (default: "default")')
    .option('--no-save', 'do not save the base URL and key to the config file')
    .action(async (options: BootstrapOptions, command: Command) => {
      const password = await passwordFor(options);
      const client = await clientFor(command, { auth: false });
      const answer = await client.post<BootstrapAnswer>('/api/auth/agent-bootstrap', {
        email: options.email,
        password,
        organization_name: options.organizationName,
        ...(options.firstName ? { first_name: options.firstName } : {}),
        ...(options.lastName ? { last_name: options.lastName } : {}),
        ...(options.keyName ? { key_name: options.keyName } : {}),
      });
      const saved = options.save
        ? await saveConfig({ baseUrl: client.connection.baseUrl, apiKey: answer.apiKey })
        : undefined;
      emit(command, answer, () =>
        [
          `Created ${answer.userData.email} in ${answer.credits.organization.name} (${answer.credits.organization.balance} credits).`,
          `API key (shown once, keep it safe): ${answer.apiKey}`,
          saved ? `Saved to ${saved}.` : 'Not saved (--no-save).',
        ].join('\n'),
      );
    });

  program
    .command('login')
    .description('check an API key and save it, with the base URL, for later commands')
    .action(async (_options: unknown, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const connection = await resolveConnection(globals);
      const apiKey = globals.apiKey || process.env.STK_API_KEY || (await promptHidden('API key: '));
      if (!apiKey) throw new UsageError('no API key given');
      const client = new ApiClient({ baseUrl: connection.baseUrl, apiKey });
      const me = await client.get<MeAnswer>('/api/me');
      const path = await saveConfig({ baseUrl: connection.baseUrl, apiKey });
      emit(
        command,
        { ...me, configPath: path },
        () => `Logged in to ${connection.baseUrl}.\n${meRecord(me)}\nSaved to ${path}.`,
      );
    });

  program
    .command('whoami')
    .description('show the key in use, its user, organization and credit balance')
    .action(async (_options: unknown, command: Command) => {
      const client = await clientFor(command);
      const me = await client.get<MeAnswer>('/api/me');
      emit(command, me, () => meRecord(me));
    });
}
