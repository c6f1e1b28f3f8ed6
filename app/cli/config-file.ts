import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError } from './errors.ts';

/** What `stk login` and `stk bootstrap` remember between runs. */
export interface SavedConfig {
  baseUrl?: string;
  apiKey?: string;
}

/**
 * Where the config lives: STK_CONFIG (tests, several profiles), else the user's config directory
 * (XDG_CONFIG_HOME, %APPDATA% on Windows, ~/.config otherwise) under stk/config.json.
 */
export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.STK_CONFIG) return env.STK_CONFIG;
  const base =
    env.XDG_CONFIG_HOME ||
    (process.platform === 'win32' ? env.APPDATA : undefined) ||
    join(homedir(), '.config');
  return join(base, 'stk', 'config.json');
}

export async function readSavedConfig(path: string = configPath()): Promise<SavedConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError(`cannot read the config file ${path}: ${(error as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!parsed || typeof parsed !== 'object') throw new Error('not an object');
    const { baseUrl, apiKey } = parsed as Record<string, unknown>;
    return {
      ...(typeof baseUrl === 'string' ? { baseUrl } : {}),
      ...(typeof apiKey === 'string' ? { apiKey } : {}),
    };
  } catch {
    throw new CliError(`the config file ${path} is not valid JSON; fix or delete it`);
  }
}

/**
 * Merges `changes` into the saved config. The file holds an API key, so it is readable by its owner
 * only (0600, in a 0700 directory) and replaced atomically: a crash never leaves half a file.
 */
export async function saveConfig(changes: SavedConfig, path: string = configPath()): Promise<string> {
  const next = { ...(await readSavedConfig(path)), ...changes };
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  // The mode of writeFile applies only to a new file, and the umask may narrow it: set it outright.
  await chmod(temporary, 0o600);
  await rename(temporary, path);
  return path;
}
