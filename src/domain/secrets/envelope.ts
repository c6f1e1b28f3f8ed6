import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/*
 * Envelope encryption with AES-256-GCM: a value is sealed under a data key of its own, and the data
 * key is sealed ("wrapped") under the master key. The associated data binds each ciphertext to where
 * it belongs (a data key to its row, a value to its secret and key), so a ciphertext copied elsewhere
 * does not open. GCM's tag makes any change to a sealed text fail to open rather than open wrong.
 */

const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;

export const newDataKey = (): Buffer => randomBytes(KEY_BYTES);

/** `plaintext` under `key`: base64url of IV, tag and ciphertext. */
export function seal(key: Buffer, plaintext: Buffer, associated: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associated, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The plaintext of `seal`; throws when the key, the associated data or the text is not the one sealed. */
export function open(key: Buffer, sealed: string, associated: string): Buffer {
  const bytes = Buffer.from(sealed, 'base64url');
  if (bytes.length < IV_BYTES + TAG_BYTES) throw new Error('sealed text too short');
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(associated, 'utf8'));
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}

/** What a wrapped data key is bound to: its own row. */
export const dataKeyContext = (keyId: string) => `stk secret data key ${keyId}`;

/** What a secret's ciphertext is bound to: its organization, name and data key. */
export const valueContext = (organizationId: string, name: string, keyId: string) =>
  `stk secret ${organizationId}/${name}/${keyId}`;
