/**
 * The meaning of a cell value to a condition, shared by both evaluators (in memory and SQL): what
 * counts as missing, how strings fold for case-insensitive comparison, which strings are dates (how a
 * jsonPath reads into a JSON cell is src/domain/columns/json-path.ts). Each rule here has its SQL twin
 * in sql.ts, written in the same terms; test/integration/rows/condition-property.test.ts holds the two
 * to each other.
 */

/** Missing: absent, null, an empty string, an empty array or an empty object. */
export function isMissing(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  return typeof value === 'object' && Object.keys(value).length === 0;
}

// Characters whose lower case `toLowerCase()` takes from their context (final sigma) or makes two
// characters of (dotted capital I): Unicode's simple mapping, which PostgreSQL applies, maps each alone.
const CONTEXTUAL = /[\u0130\u03a3]/;

/**
 * Case folding: Unicode's simple lower-case mapping, one character at a time, as PostgreSQL's
 * `lower()` under the `pg_c_utf8` collation does. Letters added in a Unicode version newer than the
 * database's tables fold here and not there (PostgreSQL 18 has Unicode 16).
 */
export function foldCase(text: string): string {
  if (!CONTEXTUAL.test(text)) return text.toLowerCase();
  let out = '';
  for (const char of text) {
    const lower = char.toLowerCase();
    out += String.fromCodePoint(lower.codePointAt(0)!);
  }
  return out;
}

export const DATE_ONLY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
export const DATE_TIME_UTC = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/;
export const MIDNIGHT = 'T00:00:00.000Z';

/**
 * A cell as a date: a string in the stored form (`2024-03-01T08:00:00.000Z`) or a plain date (midnight
 * UTC), as text that sorts as time does. Anything else is not a date (a date operator is then false).
 */
export function dateText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (DATE_TIME_UTC.test(value)) return value;
  if (DATE_ONLY.test(value)) return value + MIDNIGHT;
  return undefined;
}
