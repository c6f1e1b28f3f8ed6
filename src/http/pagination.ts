import { z } from 'zod';
import { isCalendarDay } from '../calendar.ts';
import { textProblem } from '../db/storable-text.ts';
import { AppError } from '../errors.ts';

/**
 * Cursor pagination, the same for every list: `?limit=&cursor=`, answered with the page and the
 * `nextCursor` to send for the next one (null on the last page). A cursor is opaque to clients: the
 * sort key of the last item of the page, so a page never repeats or skips an item when others are
 * added meanwhile.
 */
export const pageQuery = (options: { max: number; default: number }) =>
  z.object({
    limit: z.coerce.number().int().min(1).max(options.max).default(options.default),
    cursor: z.string().max(500).optional().describe('nextCursor of the previous page'),
  });

/** The query of most lists: up to 100 a page, 50 by default. */
export const PageQuery = pageQuery({ max: 100, default: 50 });

/** What every list answers: a page of items and the cursor of the next page (null on the last). */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), nextCursor: z.string().nullable() });

/** The sort key's parts as a cursor (a JSON array, base64url: any text may be a part). */
export const encodeCursor = (...parts: string[]): string =>
  Buffer.from(JSON.stringify(parts)).toString('base64url');

/**
 * The parts of a cursor this API returned, `count` of them, each passing `valid`; anything else is a
 * 400 naming `querystring.cursor`.
 */
export function decodeCursor(
  cursor: string,
  count: number,
  valid: (parts: string[]) => boolean = () => true,
): string[] {
  let parts: unknown;
  try {
    parts = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch {
    parts = undefined;
  }
  const isKey = (value: unknown): value is string[] =>
    Array.isArray(value) &&
    value.length === count &&
    value.every((part) => typeof part === 'string' && part !== '' && textProblem(part) === undefined);
  if (!isKey(parts) || !valid(parts)) {
    throw new AppError('validation_failed', 'The cursor is not one this API returned.', {
      errors: [{ path: 'querystring.cursor', message: 'not a cursor of this API' }],
    });
  }
  return parts;
}

/**
 * A page from `limit + 1` rows read: the first `limit` shown as `view` gives them, and the cursor of
 * the last of them (its sort key from `keyOf`) when the extra row says there is more.
 */
export function pageFrom<Row, Item>(
  rows: readonly Row[],
  limit: number,
  view: (row: Row) => Item,
  keyOf: (row: Row) => readonly string[],
): { data: Item[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(view),
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(...keyOf(last)) : null,
  };
}

// Offsets as PostgreSQL takes them: up to ±15:59.
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[ T]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,6})?(Z|[+-](0\d|1[0-5])(:?[0-5]\d)?)$/;

/**
 * A timestamp as a cursor carries it (ISO 8601, or PostgreSQL's text of a timestamptz) that PostgreSQL
 * takes: on a day the calendar has (31 February was a 500), in year 1 or later (it has no year 0).
 */
export const isTimestamp = (text: string): boolean => {
  const match = TIMESTAMP.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1, 4).map(Number) as [number, number, number];
  return year >= 1 && isCalendarDay(year, month, day);
};
