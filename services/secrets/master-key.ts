import { createHash, randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Config, isMasterKeyText } from '../../src/config.ts';
import { KEY_BYTES } from '../../src/domain/secrets/envelope.ts';

/**
 * The master keys of workspace secrets. They never enter the database: each data-key row names only
 * the id of the master key that wrapped it (a fingerprint, from which the key cannot be had).
 *
 * Where they come from: SECRETS_MASTER_KEY (the key new data keys are wrapped under) with
 * SECRETS_PREVIOUS_MASTER_KEYS (still unwrapped with, during a rotation); or, when SECRETS_MASTER_KEY
 * is unset, the key file DATA_DIR/secrets-master.key, generated with mode 0600 on first use. The file
 * holds one base64 key per line, the current one first and, during a rotation, the previous ones after.
 */
export interface MasterKey {
  id: string;
  key: Buffer;
}

export interface Keyring {
  /** Wraps every new data key. */
  current: MasterKey;
  /** Every key this process can unwrap with, the current one included. */
  all: readonly MasterKey[];
}

export const KEY_FILE = 'secrets-master.key';

export const masterKeyId = (key: Buffer) =>
  createHash('sha256').update('stk secrets master key id\0').update(key).digest('hex').slice(0, 16);

export function masterKeyOf(text: string): MasterKey {
  if (!isMasterKeyText(text)) throw new Error('a master key is 32 bytes in base64');
  const key = Buffer.from(text, 'base64');
  return { id: masterKeyId(key), key };
}

export const generateMasterKey = (): MasterKey => masterKeyOf(randomBytes(KEY_BYTES).toString('base64'));

const keyringOf = (keys: readonly MasterKey[]): Keyring => {
  const unique = [...new Map(keys.map((k) => [k.id, k])).values()];
  return { current: unique[0]!, all: unique };
};

/** The keys of a key file, current first; undefined when there is no file. */
export async function readKeyFile(path: string): Promise<MasterKey[] | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  if (lines.length === 0 || lines.some((l) => !isMasterKeyText(l))) {
    throw new Error(`${path} is not a secrets master key file (one base64 key of 32 bytes a line)`);
  }
  return lines.map(masterKeyOf);
}

const fileText = (keys: readonly MasterKey[]) =>
  [
    '# Master keys of the workspace secrets: the first wraps new data keys, the others are still read.',
    '# Back this file up apart from the database; without it no secret can be read.',
    ...keys.map((k) => k.key.toString('base64')),
    '',
  ].join('\n');

/** A temporary file beside `path`, readable by its owner only, holding `keys`. */
async function writeTemp(path: string, keys: readonly MasterKey[]): Promise<string> {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temp, fileText(keys), { mode: 0o600, flag: 'wx' });
  await chmod(temp, 0o600); // whatever the umask
  return temp;
}

/** Replaces the key file at once: a reader sees the old content or the new, never a part. */
export async function replaceKeyFile(path: string, keys: readonly MasterKey[]): Promise<void> {
  await rename(await writeTemp(path, keys), path);
}

/**
 * The key file's keys, generating the file when there is none. Two processes starting together make
 * one file: the second one's link fails and it reads the first one's key.
 */
export async function ensureKeyFile(path: string): Promise<MasterKey[]> {
  const existing = await readKeyFile(path);
  if (existing) return existing;
  await mkdir(resolve(path, '..'), { recursive: true });
  const temp = await writeTemp(path, [generateMasterKey()]);
  try {
    await link(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temp);
  }
  return (await readKeyFile(path))!;
}

type KeyConfig = Pick<Config, 'SECRETS_MASTER_KEY' | 'SECRETS_PREVIOUS_MASTER_KEYS' | 'DATA_DIR'>;

/**
 * Where this process gets its master keys, and its keyring, loaded once and loaded again when a
 * data key names a master key it does not have (a rotation has run) or before wrapping (so that a
 * rotation's new key file is followed at once).
 */
export class MasterKeySource {
  readonly kind: 'environment' | 'file';
  readonly path: string;
  private loaded?: Promise<Keyring>;

  constructor(private readonly config: KeyConfig) {
    this.kind = config.SECRETS_MASTER_KEY ? 'environment' : 'file';
    this.path = join(config.DATA_DIR, KEY_FILE);
  }

  keyring(): Promise<Keyring> {
    return this.loaded ?? this.remember(this.load());
  }

  /** Reads the keys again (the key file may have changed); the environment's do not change. */
  reload(): Promise<Keyring> {
    if (this.kind === 'environment' && this.loaded) return this.loaded;
    return this.remember(this.load());
  }

  /** A failed read keeps the keys read before, if any, so that one bad moment does not stick. */
  private remember(next: Promise<Keyring>): Promise<Keyring> {
    const previous = this.loaded;
    this.loaded = next.catch((error: unknown) => {
      if (previous) return previous;
      this.loaded = undefined;
      throw error;
    });
    return this.loaded;
  }

  /** The master key with this id: from the keyring, or from the keys read again. */
  async find(id: string): Promise<MasterKey | undefined> {
    const found = (await this.keyring()).all.find((k) => k.id === id);
    return found ?? (await this.reload()).all.find((k) => k.id === id);
  }

  private async load(): Promise<Keyring> {
    const { SECRETS_MASTER_KEY: current, SECRETS_PREVIOUS_MASTER_KEYS: previous } = this.config;
    if (!current) return keyringOf(await ensureKeyFile(this.path));
    // A key file left from before SECRETS_MASTER_KEY was set is still read, so that a rotation can
    // move its data keys under the environment's key (docs/secrets-and-prompts.md).
    const fromFile = (await readKeyFile(this.path)) ?? [];
    return keyringOf([masterKeyOf(current), ...previous.map(masterKeyOf), ...fromFile]);
  }
}
