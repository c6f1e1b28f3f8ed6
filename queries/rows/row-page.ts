import { ROW_FIELDS, ROWS, type RowRecord, storedFromRow } from '../../projections/rows/rows.ts';
import type { Pool } from '../../src/db/pool.ts';
import { invalidInput } from '../../src/domain/rows/access.ts';
import type { RowColumn } from '../../src/domain/rows/cells.ts';
import { typedCell } from '../../src/domain/rows/condition/sql.ts';
import { SqlParams } from '../../src/domain/rows/sql-params.ts';
import { type RowView, rowView } from '../../src/domain/rows/view.ts';
import { inputIssues } from '../../src/http/input-guard.ts';

export const MAX_SORT_KEYS = 10;

export interface SortKey {
  column: RowColumn;
  desc: boolean;
}

/** `-score,name`: column keys, `-` for descending. Unknown or repeated keys are a 400 at `path`. */
export function parseSort(text: string | undefined, byKey: ReadonlyMap<string, RowColumn>, path: string) {
  if (!text) return [];
  const keys: SortKey[] = [];
  const problems: string[] = [];
  for (const part of text.split(',')) {
    const desc = part.startsWith('-');
    const key = desc ? part.slice(1) : part;
    const column = byKey.get(key);
    if (!column) problems.push(`${key || '(empty)'} is not a column of the table`);
    else if (keys.some((k) => k.column.id === column.id)) problems.push(`${key} is named twice`);
    else keys.push({ column, desc });
  }
  if (keys.length > MAX_SORT_KEYS) problems.push(`at most ${MAX_SORT_KEYS} keys`);
  if (problems.length > 0) throw invalidInput('sort', [{ path, message: problems.join('; ') }]);
  return keys;
}

/**
 * The value a column sorts by, as SQL over the row `r`: numbers as numbers, dates by their UTC text
 * (the stored form sorts as time does), text case-insensitively, JSON in PostgreSQL's jsonb order. A
 * missing cell is NULL, and sorts last either way.
 */
function sortExpression(column: RowColumn, params: SqlParams): string {
  const id = params.add(column.id);
  switch (column.dataType) {
    case 'number':
      return typedCell(`(r.cells->${id})`, 'number', 'numeric');
    case 'boolean':
      return typedCell(`(r.cells->${id})`, 'boolean', 'boolean');
    case 'date':
      return `((r.cells->>${id}) COLLATE "C")`;
    case 'json':
      return `(r.cells->${id})`;
    default:
      return `lower((r.cells->>${id}) COLLATE pg_c_utf8)`;
  }
}

/** How a sort value read back from PostgreSQL goes in again as a parameter. */
const CASTS: Record<RowColumn['dataType'], string> = {
  number: 'numeric',
  boolean: 'boolean',
  date: 'text',
  json: 'jsonb',
  text: 'text',
  url: 'text',
  email: 'text',
};

function validCursorValue(column: RowColumn, value: unknown): boolean {
  if (value === null) return true;
  switch (CASTS[column.dataType]) {
    case 'numeric':
      // A cell's number is a double: one past its range is no cursor of ours (and overflows numeric).
      return (
        typeof value === 'string' &&
        /^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(value) &&
        Number.isFinite(Number(value))
      );
    case 'boolean':
      return typeof value === 'boolean';
    case 'jsonb':
      return true;
    default:
      return typeof value === 'string';
  }
}

interface Cursor {
  /** The sort it was made for. */
  s: string;
  /** The last row's sort values, as PostgreSQL returned them. */
  v: unknown[];
  id: string;
}

const sortText = (sort: readonly SortKey[]) =>
  sort.map((k) => `${k.desc ? '-' : ''}${k.column.key}`).join(',');

function decodeCursor(text: string, sort: readonly SortKey[], path: string): Cursor {
  const refuse = (message: string) => invalidInput('cursor', [{ path, message }]);
  let cursor: Cursor;
  try {
    cursor = JSON.parse(Buffer.from(text, 'base64url').toString());
  } catch {
    throw refuse('not a cursor of this API');
  }
  if (
    typeof cursor !== 'object' ||
    cursor === null ||
    typeof cursor.id !== 'string' ||
    !Array.isArray(cursor.v) ||
    typeof cursor.s !== 'string'
  ) {
    throw refuse('not a cursor of this API');
  }
  if (cursor.s !== sortText(sort)) throw refuse('the cursor belongs to another sort; send the same sort');
  if (cursor.v.length !== sort.length || !sort.every((k, i) => validCursorValue(k.column, cursor.v[i]))) {
    throw refuse('not a cursor of this API');
  }
  // Text PostgreSQL cannot take (a NUL, half a surrogate pair) was never in a cursor we made.
  if (inputIssues(cursor).length > 0) throw refuse('not a cursor of this API');
  return cursor;
}

/**
 * Rows after the cursor in the order of `sort` then id, as SQL: at the first key where the row differs
 * from the cursor's, it comes later (NULLs last in both directions); on equal keys, the larger id.
 */
function afterCursor(sort: readonly SortKey[], exprs: readonly string[], cursor: Cursor, params: SqlParams) {
  let after = `r.id > ${params.add(cursor.id)}`;
  for (let i = sort.length - 1; i >= 0; i--) {
    const value = cursor.v[i];
    const expr = exprs[i]!;
    if (value === null) {
      after = `(${expr} IS NULL AND ${after})`;
      continue;
    }
    const cast = CASTS[sort[i]!.column.dataType];
    const v = params.add(cast === 'jsonb' ? JSON.stringify(value) : value, cast);
    after = `(${expr} ${sort[i]!.desc ? '<' : '>'} ${v} OR ${expr} IS NULL OR (${expr} = ${v} AND ${after}))`;
  }
  return after;
}

export interface PageRequest {
  limit: number;
  cursor?: string;
  sort: readonly SortKey[];
  /** Where the cursor came from, for the path a bad one is reported at. */
  cursorPath: string;
  /** A predicate on the row `r` (a filter or condition compiled to SQL), adding its own parameters. */
  where?: (params: SqlParams) => string;
}

export interface RowPage {
  data: RowView[];
  nextCursor: string | null;
}

/** What a keyset page reads: a read model with an `id` and `cells` (as rows), aliased `r`, and its scope. */
export interface PageSource {
  /** The columns selected. */
  fields: string;
  table: string;
  /** The predicate on `r` that scopes the page (a table's rows, an organization's tasks). */
  scope: (params: SqlParams) => string;
}

/** A keyset page's statement over any source whose sort keys read `r.cells` (rows, tasks). */
export function keysetQuery(source: PageSource, request: PageRequest): { text: string; values: unknown[] } {
  const params = new SqlParams();
  const conditions = [source.scope(params)];
  const exprs = request.sort.map((k) => sortExpression(k.column, params));
  if (request.where) conditions.push(`(${request.where(params)}) IS TRUE`);
  if (request.cursor) {
    const cursor = decodeCursor(request.cursor, request.sort, request.cursorPath);
    conditions.push(afterCursor(request.sort, exprs, cursor, params));
  }
  const order = [...request.sort.map((k, i) => `${exprs[i]} ${k.desc ? 'DESC' : 'ASC'} NULLS LAST`), 'r.id'];
  const text = `SELECT ${source.fields}${exprs.map((e, i) => `, ${e} AS s${i}`).join('')}
    FROM ${source.table} r WHERE ${conditions.join(' AND ')}
    ORDER BY ${order.join(', ')} LIMIT ${params.add(request.limit + 1)}`;
  return { text, values: params.values };
}

/** The page's statement and its parameters (the benchmark's bare route runs the same). */
export const pageQuery = (tableId: string, request: PageRequest) =>
  keysetQuery(
    { fields: ROW_FIELDS, table: ROWS, scope: (params) => `r.table_id = ${params.add(tableId)}` },
    request,
  );

/** The cursor of the page after `rows` (read with limit + 1), null on the last page. */
export function nextCursorOf(
  rows: readonly ({ id: string } & Record<string, unknown>)[],
  request: PageRequest,
) {
  const last = rows[request.limit - 1];
  if (rows.length <= request.limit || !last) return null;
  return Buffer.from(
    JSON.stringify({ s: sortText(request.sort), v: request.sort.map((_, i) => last[`s${i}`]), id: last.id }),
  ).toString('base64url');
}

/** One page of a table's rows, with the cursor of the next one (null on the last page). */
export async function readRowPage(
  pool: Pool,
  tableId: string,
  columns: readonly RowColumn[],
  request: PageRequest,
): Promise<RowPage> {
  const { text, values } = pageQuery(tableId, request);
  const { rows } = await pool.query<RowRecord & Record<string, unknown>>(text, values);
  const page = rows.slice(0, request.limit);
  const nextCursor = nextCursorOf(rows, request);
  return { data: page.map((row) => rowView(columns, storedFromRow(row))), nextCursor };
}
