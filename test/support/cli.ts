import { type ChildProcess, spawn } from 'node:child_process';
import { delimiter, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The client's own settings: a developer's shell may hold them, and no test may pick them up by chance. */
const CLIENT_SETTINGS = ['STK_API_KEY', 'STK_BASE_URL', 'STK_CONFIG'];

export interface StkOptions {
  env?: Record<string, string>;
  input?: string;
  /** Start this executable (a link to bin/stk.js, as npm makes one) instead of `node bin/stk.js`. */
  executable?: string;
}

/**
 * Starts `stk ...` (bin/stk.js) as a user would: its own process, with our environment less the
 * client's settings, plus `env`. With `input`, stdin gets it and ends; without, stdin is closed.
 */
export function spawnStk(args: string[], options: StkOptions = {}): ChildProcess {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CLIENT_SETTINGS) delete env[name];
  // An executable finds node through its `#!/usr/bin/env node` line: the node running the tests.
  if (options.executable) env.PATH = [dirname(process.execPath), env.PATH].filter(Boolean).join(delimiter);
  const [file, argv] = options.executable
    ? [options.executable, args]
    : [process.execPath, ['bin/stk.js', ...args]];
  const child = spawn(file, argv, {
    cwd: ROOT,
    env: { ...env, ...options.env },
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  return child;
}

/** Waits for a started `stk` to end, with all it printed. */
export function finished(child: ChildProcess): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

/** Runs `stk ...` to the end (see spawnStk). */
export function runStk(args: string[], options: StkOptions = {}) {
  return finished(spawnStk(args, options));
}

/** Starts `stk admin ...` against the database at `databaseUrl`, as the operator `test-operator`. */
export function spawnAdmin(databaseUrl: string, args: string[], env: Record<string, string> = {}) {
  return spawnStk(['admin', ...args], {
    env: { LOG_LEVEL: 'warn', DATABASE_URL: databaseUrl, STK_ADMIN_ACTOR: 'test-operator', ...env },
  });
}

/** Runs `stk admin ...` to the end. */
export function runAdmin(databaseUrl: string, args: string[], env: Record<string, string> = {}) {
  return finished(spawnAdmin(databaseUrl, args, env));
}
