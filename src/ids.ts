import { createHash, randomBytes } from 'node:crypto';

// Crockford's base32 alphabet: no I, L, O or U, so an id read aloud or copied by hand stays unambiguous.
export const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const LENGTH = 20; // 100 random bits

/** `<prefix>_` and 20 random characters: the ids this service makes (tables, columns, prompts, keys). */
export const randomId = (prefix: string): string => idOf(prefix, randomBytes(LENGTH));

function idOf(prefix: string, bytes: Uint8Array): string {
  let id = `${prefix}_`;
  // 256 is a multiple of 32, so taking the low five bits keeps every character equally likely.
  for (const byte of bytes) id += ALPHABET[byte & 31];
  return id;
}

/**
 * An id of the same form as `randomId(prefix)`, derived from `seed`: the same seed, the same id (a
 * command asked again after a crash names the same thing).
 */
export const derivedId = (prefix: string, seed: string): string =>
  idOf(prefix, createHash('sha256').update(seed).digest().subarray(0, LENGTH));

/**
 * A test for ids made by `randomId(prefix)`. An id of the wrong form names nothing: callers answer
 * 404 for it without reading anything, the same answer an unknown id of the right form gets.
 */
export function idForm(prefix: string): (id: string) => boolean {
  const form = new RegExp(`^${prefix}_[${ALPHABET}]{${LENGTH}}$`);
  return (id) => form.test(id);
}
