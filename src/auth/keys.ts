import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API keys look like `stk_{key_id}.{secret}`. The key id is public (it names the key in listings and
 * URLs); the secret is 32 random bytes, base64url, and is kept only as its SHA-256. A plain hash is
 * enough here (unlike passwords): the secret has 256 bits of entropy, so it cannot be guessed from
 * its hash, and verifying it must stay cheap because it happens on every request.
 */
const KEY_ID_BYTES = 10;
const SECRET_BYTES = 32;
const KEY_PATTERN = /^stk_([0-9a-f]{20})\.([A-Za-z0-9_-]{43})$/;

export interface ParsedKey {
  keyId: string;
  secret: string;
}

export interface NewKey extends ParsedKey {
  /** The whole key, shown to its owner once. */
  apiKey: string;
  /** The part that identifies the key without revealing it. */
  prefix: string;
  secretHash: string;
}

export function newKeyId(): string {
  return randomBytes(KEY_ID_BYTES).toString('hex');
}

export function keyPrefix(keyId: string): string {
  return `stk_${keyId}`;
}

export function generateKey(keyId: string = newKeyId()): NewKey {
  const secret = randomBytes(SECRET_BYTES).toString('base64url');
  return {
    keyId,
    secret,
    apiKey: `${keyPrefix(keyId)}.${secret}`,
    prefix: keyPrefix(keyId),
    secretHash: hashSecret(secret),
  };
}

/** The key id and secret of a well-formed key, or undefined (no database lookup for garbage). */
export function parseKey(raw: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(raw);
  return match ? { keyId: match[1]!, secret: match[2]! } : undefined;
}

/** Hex SHA-256 of a secret: what the events and the read model keep. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Compares a presented secret with a stored hash in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const presented = createHash('sha256').update(secret).digest();
  const stored = Buffer.from(storedHash, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}
