import { z } from 'zod';
import type { FieldError } from '../../errors.ts';
import { isIsoDate, utcInstant } from '../columns/operators.ts';
import type { TableColumn } from '../tables/table-state.ts';
import type { CellStatusValue } from './events.ts';

/** What rows need to know of a column: its id, key, kind and data type. */
export type RowColumn = Pick<TableColumn, 'id' | 'key' | 'kind' | 'dataType'>;

export const MAX_TEXT_CHARS = 100_000;
export const MAX_JSON_BYTES = 256 * 1024;

// z.email()'s own pattern, tested directly: a schema's parse per cell cost more than the test itself.
const EMAIL = z.regexes.email;

/** Code points, counted only when the UTF-16 length leaves it in doubt. */
function longerThan(text: string, limit: number): boolean {
  if (text.length <= limit) return false;
  let count = 0;
  for (const _ of text) if (++count > limit) return true;
  return false;
}

/**
 * A date or date-time in UTC, as stored: `toISOString()` form, so that text order is time order. A
 * date-time without an offset is read as UTC, never in the server's own time zone.
 */
export function normalizeDate(value: string): string {
  return new Date(utcInstant(value)).toISOString();
}

/**
 * Why a value is refused; one object per message, so that checking a value allocates nothing. `at` is
 * where inside the value (a JSON cell's `.k[2]`), when not the value itself.
 */
class Refusal {
  constructor(
    readonly message: string,
    readonly at = '',
  ) {}
}

const NOT_TEXT = new Refusal('expected a string');
const TOO_LONG = new Refusal(`at most ${MAX_TEXT_CHARS} characters`);
const NOT_NUMBER = new Refusal('expected a number');
const NOT_BOOLEAN = new Refusal('expected true or false');
const NOT_DATE = new Refusal('expected an ISO 8601 date or date-time');
const NOT_URL = new Refusal('expected an absolute http or https URL');
const NOT_EMAIL = new Refusal('expected an email address');
const TOO_BIG = new Refusal(`at most ${MAX_JSON_BYTES / 1024} KB serialized`);
const OUT_OF_RANGE = 'a number out of range (JSON numbers must be finite, at most about 1.8e308 in size)';
const NOT_FINITE = new Refusal(OUT_OF_RANGE);

function isWebUrl(value: string): boolean {
  if (value.length > 2048 || !URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}

/**
 * Where in a JSON value a number is not finite (`1e309` parses as Infinity, which JSON has no way to
 * write: it would be stored as null), as a path suffix (`.k[2]`); undefined when none is.
 */
function nonFiniteAt(value: unknown): string | undefined {
  const pending: { value: unknown; at: string }[] = [{ value, at: '' }];
  while (pending.length > 0) {
    const { value: item, at } = pending.pop()!;
    if (typeof item === 'number') {
      if (!Number.isFinite(item)) return at;
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) pending.push({ value: item[i], at: `${at}[${i}]` });
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--)
        pending.push({ value: entries[i]![1], at: `${at}.${entries[i]![0]}` });
    }
  }
  return undefined;
}

/**
 * A UTF-16 code unit is at most 3 bytes of UTF-8: short JSON needs no byte count. A number that is not
 * finite is written null by JSON.stringify, so only a text with a null in it needs looking into.
 */
function checkJson(value: unknown): unknown {
  const text = JSON.stringify(value);
  if (text === undefined) return new Refusal('expected a JSON value');
  if (text.includes('null')) {
    const at = nonFiniteAt(value);
    if (at !== undefined) return new Refusal(OUT_OF_RANGE, at);
  }
  return text.length * 3 <= MAX_JSON_BYTES || Buffer.byteLength(text) <= MAX_JSON_BYTES ? value : TOO_BIG;
}

/**
 * The check of each data type, made once: the value as stored (dates normalised to UTC), or why it is
 * refused. An import checks every cell of a thousand rows, so these neither build closures nor
 * allocate on the way.
 */
const CHECKS: Record<RowColumn['dataType'], (value: unknown) => unknown> = {
  text: (value) =>
    typeof value !== 'string' ? NOT_TEXT : longerThan(value, MAX_TEXT_CHARS) ? TOO_LONG : value,
  number: (value) => (typeof value !== 'number' ? NOT_NUMBER : Number.isFinite(value) ? value : NOT_FINITE),
  boolean: (value) => (typeof value === 'boolean' ? value : NOT_BOOLEAN),
  date: (value) => (isIsoDate(value) ? normalizeDate(value) : NOT_DATE),
  url: (value) => (typeof value === 'string' && isWebUrl(value) ? value : NOT_URL),
  email: (value) => (typeof value === 'string' && EMAIL.test(value) ? value : NOT_EMAIL),
  json: checkJson,
};

export interface CheckedCells {
  /** By column id; null (when allowed) clears the cell. */
  cells: Record<string, unknown>;
  errors: FieldError[];
}

/**
 * Cells as sent (by column key) checked against the table's columns: every offending cell named at
 * `${path}.${key}`, unknown keys included. On insert a null is the same as leaving the cell out.
 */
export function checkCells(
  columns: ReadonlyMap<string, RowColumn>,
  cells: Readonly<Record<string, unknown>>,
  path: string,
  nulls: 'clear' | 'omit',
): CheckedCells {
  const out: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const key of Object.keys(cells)) {
    const value = cells[key];
    const column = columns.get(key);
    if (!column) {
      errors.push({ path: `${path}.${key}`, message: 'unknown column' });
      continue;
    }
    if (value === null) {
      if (nulls === 'clear') out[column.id] = null;
      continue;
    }
    const checked = CHECKS[column.dataType](value);
    if (checked instanceof Refusal)
      errors.push({ path: `${path}.${key}${checked.at}`, message: checked.message });
    else out[column.id] = checked;
  }
  return { cells: out, errors };
}

/** The columns by key, as cells sent by clients name them. */
export const columnsByKey = (columns: Iterable<RowColumn>) => new Map([...columns].map((c) => [c.key, c]));

/**
 * What a direct write does to the status of non-input cells: `done` when it writes a value, `empty`
 * when it clears one. Input columns have no status.
 */
export function writtenStatuses(
  columnsById: ReadonlyMap<string, RowColumn>,
  cells: Readonly<Record<string, unknown>>,
): Record<string, CellStatusValue> {
  const statuses: Record<string, CellStatusValue> = {};
  for (const [id, value] of Object.entries(cells)) {
    if (columnsById.get(id)?.kind !== 'input') statuses[id] = value === null ? 'empty' : 'done';
  }
  return statuses;
}
