import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { RunEndedError, UsageError } from './errors.ts';
import { escapeControls } from './output.ts';
import { commandModules } from './verbs/index.ts';

/** The version of package.json, which `stk --version` prints. */
export const STK_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

/**
 * `stk`: the developer API from a terminal. It speaks only the HTTP contract (same keys, same
 * scopes); `stk admin` is the operator's side and talks to the database directly.
 */
export function buildProgram(): Command {
  const program = new Command('stk')
    .description('Command-line client for the stk developer API')
    // `stk --version` is answered by runCli, before commander: a root option would be recognised after
    // a subcommand too, and take `stk prompts get <id> --version 2` for itself.
    .addHelpText('after', '\nstk --version (or -V) prints the version of stk.')
    .option(
      '--base-url <url>',
      'API base URL (default: STK_BASE_URL, the saved login, or http://127.0.0.1:3000)',
    )
    .option('--api-key <key>', 'API key (default: STK_API_KEY or the saved login)')
    .option('--json', 'print JSON for scripts instead of tables')
    .showHelpAfterError()
    // A command's --help lists the options every command takes too (--base-url, --api-key, --json).
    .configureHelp({ showGlobalOptions: true })
    // An unknown command or a stray argument is a usage error (exit 2), never silently ignored.
    .allowExcessArguments(false)
    .exitOverride();
  for (const register of commandModules) register(program);
  return program;
}

/** An error's message may quote the service (a problem's detail naming a table): escaped too. */
const report = (message: string) => process.stderr.write(`error: ${escapeControls(message, '\n')}\n`);

export async function runCli(argv: string[]): Promise<number> {
  if (argv[0] === '--version' || argv[0] === '-V') {
    process.stdout.write(`${STK_VERSION}\n`);
    return 0;
  }
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version exit 0; anything else commander rejects is a usage error.
      return error.exitCode === 0 ? 0 : 2;
    }
    report(error instanceof Error ? error.message : String(error));
    // A watched run that did not succeed exits with its own code (3, 4 or 5: run-watch.ts).
    if (error instanceof RunEndedError) return error.exitCode;
    return error instanceof UsageError ? 2 : 1;
  }
}
