import { z } from 'zod';
import { AppError } from '../errors.ts';

/** The query of every cursor-paginated list: `?limit=&cursor=`. */
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().max(500).optional().describe('nextCursor of the previous page'),
});

/** What every list answers: a page of items and the cursor of the next page (null on the last). */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), nextCursor: z.string().nullable() });

/**
 * The cursor is opaque to clients: the sort key of the last item of the previous page, its parts
 * joined by `|` (none of the keys paged on holds one) and base64url-encoded.
 */
export const encodeCursor = (...parts: string[]): string =>
  Buffer.from(parts.join('|')).toString('base64url');

/**
 * The parts of a cursor this API returned, `count` of them, each passing `valid`; anything else is a
 * 400 naming `querystring.cursor`.
 */
export function decodeCursor(
  cursor: string,
  count: number,
  valid: (parts: string[]) => boolean = () => true,
): string[] {
  const parts = Buffer.from(cursor, 'base64url').toString().split('|');
  if (parts.length !== count || parts.some((p) => p === '') || !valid(parts)) {
    throw new AppError('validation_failed', 'The cursor is not one this API returned.', {
      errors: [{ path: 'querystring.cursor', message: 'not a cursor of this API' }],
    });
  }
  return parts;
}

/**
 * A page from `limit + 1` rows read: the first `limit`, and a cursor after the last of them when the
 * extra row says there is more.
 */
export function pageFrom<Row, Item>(
  rows: readonly Row[],
  limit: number,
  view: (row: Row) => Item,
  cursorOf: (row: Row) => string,
): { data: Item[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { data: page.map(view), nextCursor: rows.length > limit && last ? cursorOf(last) : null };
}
