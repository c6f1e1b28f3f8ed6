import { randomBytes } from 'node:crypto';

// Crockford's base32 alphabet: no I, L, O or U, so an id read aloud or copied by hand stays unambiguous.
export const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const LENGTH = 20; // 100 random bits

function randomId(prefix: string): string {
  const bytes = randomBytes(LENGTH);
  let id = `${prefix}_`;
  // 256 is a multiple of 32, so taking the low five bits keeps every character equally likely.
  for (const byte of bytes) id += ALPHABET[byte & 31];
  return id;
}

const form = (prefix: string) => new RegExp(`^${prefix}_[${ALPHABET}]{${LENGTH}}$`);
const TABLE_ID = form('tbl');
const COLUMN_ID = form('col');

export const newTableId = () => randomId('tbl');
export const newColumnId = () => randomId('col');

/**
 * An id of the wrong form names nothing: callers answer 404 for it without reading anything, the same
 * answer an unknown id of the right form gets.
 */
export const isTableId = (id: string) => TABLE_ID.test(id);
export const isColumnId = (id: string) => COLUMN_ID.test(id);
