import { hostname } from 'node:os';
import { type Command, Option } from 'commander';
import { SCOPES } from '../../../src/auth/scopes.ts';
import { configPath, readSavedConfig, saveConfig } from '../config-file.ts';
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

interface PasswordOptions {
  password?: string;
  passwordStdin?: boolean;
}

interface BootstrapOptions extends PasswordOptions {
  email: string;
  organizationName: string;
  firstName?: string;
  lastName?: string;
  keyName?: string;
  save: boolean;
  force?: boolean;
}

interface LoginOptions extends PasswordOptions {
  email?: string;
  keyName?: string;
  scope?: string[];
}

const NO_TERMINAL = 'pass it on standard input with --password-stdin';

/** From --password, standard input, or the terminal (asked twice when it is a new one). */
async function passwordFor(options: PasswordOptions, confirm: boolean): Promise<string> {
  if (options.password !== undefined && options.passwordStdin)
    throw new UsageError('give --password or --password-stdin, not both');
  if (options.password !== undefined) return options.password;
  if (options.passwordStdin) return readStdin();
  if (!confirm) return promptHidden('Password: ', NO_TERMINAL);
  const password = await promptHidden('Password (at least 12 characters): ', NO_TERMINAL);
  const again = await promptHidden('Password again: ', NO_TERMINAL);
  if (password !== again) throw new UsageError('the passwords differ');
  return password;
}

/** A bootstrap would replace the saved login, whose key may be the only copy: only when asked to. */
async function refuseToReplaceLogin(options: BootstrapOptions): Promise<void> {
  if (!options.save || options.force) return;
  if (!(await readSavedConfig()).apiKey) return;
  throw new UsageError(
    `a login is saved in ${configPath()} already; pass --force to replace it, or --no-save to keep it`,
  );
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
    .option('--force', 'replace a login saved already')
    .action(async (options: BootstrapOptions, command: Command) => {
      // Before anything is created: a refusal after the call would lose the new key.
      await refuseToReplaceLogin(options);
      const password = await passwordFor(options, true);
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
    .description(
      'get a new API key with your email and password (--email), or check an existing key; ' +
        'either is saved, with the base URL, for later commands',
    )
    .option('--email <email>', 'log in with this email address and its password: a new key is issued')
    .option('--password-stdin', 'with --email: read the password from standard input')
    .option('--key-name <name>', `with --email: a name for the new key (default: "stk on ${hostname()}")`)
    .addOption(
      new Option(
        '--scope <scope...>',
        'with --email: a scope of the new key (repeat; default: every scope)',
      ).choices(SCOPES),
    )
    .action(async (options: LoginOptions, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      const connection = await resolveConnection(globals);
      if (options.email === undefined) {
        if (options.passwordStdin || options.keyName || options.scope)
          throw new UsageError('--password-stdin, --key-name and --scope go with --email');
        return checkAndSaveKey(command, connection.baseUrl, globals);
      }
      const password = await passwordFor(options, false);
      const client = new ApiClient({ baseUrl: connection.baseUrl });
      const answer = await client.post<{ apiKey: string; keyMetadata: KeyMetadata }>('/api/auth/login', {
        email: options.email,
        password,
        key_name: options.keyName ?? `stk on ${hostname()}`,
        ...(options.scope ? { scopes: options.scope } : {}),
      });
      const path = await saveConfig({ baseUrl: connection.baseUrl, apiKey: answer.apiKey });
      emit(command, { ...answer, configPath: path }, () =>
        [
          `Logged in to ${connection.baseUrl} as ${options.email}.`,
          formatRecord([
            ['Key', `${answer.keyMetadata.name} (${answer.keyMetadata.id})`],
            ['Scopes', answer.keyMetadata.scopes.join(' ')],
          ]),
          `Saved to ${path}.`,
        ].join('\n'),
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

/** `stk login` without --email: checks the key given (flag, environment or terminal) and saves it. */
async function checkAndSaveKey(command: Command, baseUrl: string, globals: GlobalOptions): Promise<void> {
  const apiKey =
    globals.apiKey ||
    process.env.STK_API_KEY ||
    (await promptHidden('API key: ', 'pass --api-key, set STK_API_KEY, or log in with --email'));
  if (!apiKey) throw new UsageError('no API key given');
  const me = await new ApiClient({ baseUrl, apiKey }).get<MeAnswer>('/api/me');
  const path = await saveConfig({ baseUrl, apiKey });
  emit(
    command,
    { ...me, configPath: path },
    () => `Logged in to ${baseUrl}.\n${meRecord(me)}\nSaved to ${path}.`,
  );
}
