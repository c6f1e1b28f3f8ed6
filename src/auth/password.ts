import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

const PARAMS = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 64;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/**
 * scrypt with a per-user random salt, encoded with its parameters (`scrypt$N$r$p$salt$hash`) so that
 * stronger parameters later still verify the old hashes. Runs on libuv's thread pool, off the event loop.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join(
    '$',
  );
}

export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = encoded.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let unknownAccountHash: Promise<string> | undefined;

/**
 * The check for an account that does not exist: a real scrypt verification against the hash of a
 * password nobody knows, so that it takes as long as a wrong password for an account that does, and a
 * login's timing does not tell which addresses have accounts. Always false.
 */
export async function verifyNoPassword(password: string): Promise<false> {
  unknownAccountHash ??= hashPassword(randomBytes(32).toString('base64url'));
  await verifyPassword(password, await unknownAccountHash);
  return false;
}
