import type { DataType } from '../columns/fields.ts';

/**
 * The key a column's cells sort by, and the one the rows read model indexes (projections/rows/
 * storage.ts): one SQL expression per data type over a row's `cells`, written once here, because
 * PostgreSQL uses an expression index only for the very same expression. The column id goes in as a
 * literal for the same reason (a parameter is not the index's constant).
 *
 * - number: the number (numeric), NULL when the cell is missing or holds another JSON type;
 * - boolean: the same, false before true;
 * - date: the stored text (`2024-03-01T08:00:00.000Z`, which sorts as time does), C order, its first
 *   DATE_KEY_CHARS characters (every date is 24);
 * - text, url, email: the text folded case-insensitively (as conditions fold it), code point order,
 *   its first TEXT_KEY_CHARS characters: an index entry must stay under PostgreSQL's 2,704 bytes, and
 *   a text of 100,000 characters would not. Texts that agree that far are tied, and ties go by row id;
 * - json: the cell in jsonb order, never indexed (a JSON cell may be 256 KB).
 *
 * A missing cell's key is NULL, and NULL sorts last either way.
 */
export const TEXT_KEY_CHARS = 512;
export const DATE_KEY_CHARS = 64;

/** A SQL string literal (column ids are ours, but a literal is quoted whatever it holds). */
export function sqlLiteral(value: string): string {
  if (value.includes('\u0000')) throw new Error('a NUL cannot be in a SQL literal');
  return `'${value.replaceAll("'", "''")}'`;
}

/** Whether a column of this type has an index (and its sorts and filters can use one). */
export const isIndexedType = (dataType: DataType): boolean => dataType !== 'json';

/** The key of column `columnId` of type `dataType` over the jsonb `cells` (`r.cells` in a query). */
export function columnKey(dataType: DataType, columnId: string, cells = 'r.cells'): string {
  const id = sqlLiteral(columnId);
  const cell = `(${cells}->${id})`;
  switch (dataType) {
    case 'number':
      return `(CASE WHEN jsonb_typeof(${cell}) = 'number' THEN ${cell}::numeric END)`;
    case 'boolean':
      return `(CASE WHEN jsonb_typeof(${cell}) = 'boolean' THEN ${cell}::boolean END)`;
    case 'date':
      return `(left(${cells}->>${id}, ${DATE_KEY_CHARS}) COLLATE "C")`;
    case 'json':
      return cell;
    default:
      return `left(lower((${cells}->>${id}) COLLATE pg_c_utf8), ${TEXT_KEY_CHARS})`;
  }
}

/** The first `chars` characters (code points, as PostgreSQL's left() counts them) of a string. */
export function leftChars(text: string, chars: number): string {
  if (text.length <= chars) return text;
  let out = '';
  let count = 0;
  for (const char of text) {
    if (count++ === chars) break;
    out += char;
  }
  return out;
}
