import { z } from 'zod';
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

export function encodeCursor(key: readonly string[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/**
 * The sort key a cursor of this API carries (`arity` parts, each passing `valid` when given), or a
 * 400 naming the cursor.
 */
export function decodeCursor(
  cursor: string,
  arity: number,
  valid: (key: string[]) => boolean = () => true,
): string[] {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch {
    key = undefined;
  }
  const isKey = (value: unknown): value is string[] =>
    Array.isArray(value) && value.length === arity && value.every((part) => typeof part === 'string');
  if (!isKey(key) || !valid(key)) {
    throw new AppError('validation_failed', 'The cursor is not one this API returned.', {
      errors: [{ path: 'querystring.cursor', message: 'not a cursor of this API' }],
    });
  }
  return key;
}

/**
 * The page of `rows` read with `LIMIT limit + 1`: the first `limit` of them, and the cursor of the
 * last one when there was one more.
 */
export function pageOf<T>(
  rows: readonly T[],
  limit: number,
  keyOf: (last: T) => readonly string[],
): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null };
}

/** A timestamp as a cursor carries it (ISO 8601, or PostgreSQL's text of a timestamptz). */
export const isTimestamp = (text: string): boolean =>
  /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}(:?\d{2})?)$/.test(text);
