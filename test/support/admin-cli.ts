import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Starts `stk admin ...` (bin/stk.js) as a child process against the database at `databaseUrl`. */
export function spawnAdmin(
  databaseUrl: string,
  args: string[],
  env: Record<string, string> = {},
): ChildProcess {
  return spawn(process.execPath, ['bin/stk.js', 'admin', ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      DATABASE_URL: databaseUrl,
      STK_ADMIN_ACTOR: 'test-operator',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs `stk admin ...` to the end. */
export function runAdmin(
  databaseUrl: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliRun> {
  const child = spawnAdmin(databaseUrl, args, env);
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
