import { z } from 'zod';
import type { FieldError } from '../../errors.ts';
import { isIsoDate } from '../columns/operators.ts';
import type { TableColumn } from '../tables/table-state.ts';
import type { CellStatusValue } from './events.ts';

/** What rows need to know of a column: its id, key, kind and data type. */
export type RowColumn = Pick<TableColumn, 'id' | 'key' | 'kind' | 'dataType'>;

export const MAX_TEXT_CHARS = 100_000;
export const MAX_JSON_BYTES = 256 * 1024;

const email = z.email();

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
  let text = value.replace(' ', 'T');
  if (/T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/.test(text)) text += 'Z';
  return new Date(text).toISOString();
}

type Checked = { ok: true; value: unknown } | { ok: false; message: string };

/** A value checked against a column's data type, normalised as stored (dates in UTC). */
export function checkValue(dataType: RowColumn['dataType'], value: unknown): Checked {
  const refuse = (message: string): Checked => ({ ok: false, message });
  switch (dataType) {
    case 'text':
      if (typeof value !== 'string') return refuse('expected a string');
      if (longerThan(value, MAX_TEXT_CHARS)) return refuse(`at most ${MAX_TEXT_CHARS} characters`);
      return { ok: true, value };
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
        ? { ok: true, value }
        : refuse('expected a number');
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true, value } : refuse('expected true or false');
    case 'date':
      return isIsoDate(value)
        ? { ok: true, value: normalizeDate(value) }
        : refuse('expected an ISO 8601 date or date-time');
    case 'url': {
      const url = typeof value === 'string' && value.length <= 2048 && URL.canParse(value) && new URL(value);
      return url && (url.protocol === 'http:' || url.protocol === 'https:')
        ? { ok: true, value }
        : refuse('expected an absolute http or https URL');
    }
    case 'email':
      return email.safeParse(value).success ? { ok: true, value } : refuse('expected an email address');
    case 'json':
      return Buffer.byteLength(JSON.stringify(value)) <= MAX_JSON_BYTES
        ? { ok: true, value }
        : refuse(`at most ${MAX_JSON_BYTES / 1024} KB serialized`);
    default: {
      const never: never = dataType;
      return never;
    }
  }
}

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
  for (const [key, value] of Object.entries(cells)) {
    const column = columns.get(key);
    if (!column) {
      errors.push({ path: `${path}.${key}`, message: 'unknown column' });
      continue;
    }
    if (value === null) {
      if (nulls === 'clear') out[column.id] = null;
      continue;
    }
    const checked = checkValue(column.dataType, value);
    if (checked.ok) out[column.id] = checked.value;
    else errors.push({ path: `${path}.${key}`, message: checked.message });
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
