import { invalidInput } from '../../src/domain/rows/access.ts';
import type { RowColumn } from '../../src/domain/rows/cells.ts';
import { typedCell } from '../../src/domain/rows/condition/sql.ts';
import { SqlParams } from '../../src/domain/rows/sql-params.ts';
import type { RowView } from '../../src/domain/rows/view.ts';
import { inputIssues } from '../../src/http/input-guard.ts';

/*
 * Keyset pages over any read model whose rows carry `id` and `cells` (rows, tasks): the sort a request
 * names, its cursors, and the statement of a page. How many rows and bytes a page of a research
 * table's rows carries is row-page.ts's.
 */

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
 * missing cell is NULL, and sorts last either way. A source may sort by keys of its own (the rows read
 * model sorts by the keys its indexes hold, src/domain/rows/keys.ts).
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
    const v = cursorParam(sort[i]!, value, params);
    after = `(${expr} ${sort[i]!.desc ? '<' : '>'} ${v} OR ${expr} IS NULL OR (${expr} = ${v} AND ${after}))`;
  }
  return after;
}

function cursorParam(key: SortKey, value: unknown, params: SqlParams): string {
  const cast = CASTS[key.column.dataType];
  return params.add(cast === 'jsonb' ? JSON.stringify(value) : value, cast);
}

/**
 * The rows after the cursor as disjoint parts, each an index range on the first key, in the order
 * they come: rows tied with the cursor on the first key (and after it on the rest), rows past it on
 * the first key, then rows whose first key is NULL. afterCursor's one condition is the same rows,
 * but its ORs bound no index scan: deep in a large table, a page would read every row before it.
 */
function partsAfterCursor(
  sort: readonly SortKey[],
  exprs: readonly string[],
  cursor: Cursor,
  params: SqlParams,
  indexedKeys: boolean,
): string[] {
  const [first, ...rest] = sort;
  const firstExpr = exprs[0]!;
  const restAfter = () => afterCursor(rest, exprs.slice(1), { ...cursor, v: cursor.v.slice(1) }, params);
  if (!first) return [afterCursor(sort, exprs, cursor, params)];
  if (cursor.v[0] === null) return [`${firstExpr} IS NULL AND ${restAfter()}`];
  const v = cursorParam(first, cursor.v[0], params);
  // One ascending key over an index of (key, id): the rows past the cursor's are one range of it, a
  // row comparison (NULL keys are not in it: they come after, as their own part).
  if (indexedKeys && rest.length === 0 && !first.desc) {
    return [`(${firstExpr}, r.id) > (${v}, ${params.add(cursor.id)})`, `${firstExpr} IS NULL`];
  }
  return [
    `${firstExpr} = ${v} AND ${restAfter()}`,
    `${firstExpr} ${first.desc ? '<' : '>'} ${v}`,
    `${firstExpr} IS NULL`,
  ];
}

export interface PageRequest {
  limit: number;
  cursor?: string;
  sort: readonly SortKey[];
  /** Where the cursor came from, for the path a bad one is reported at. */
  cursorPath: string;
  /**
   * The rows selected, as SQL over the row `r` that is true for them (a filter or condition compiled
   * by selectedSql), adding its own parameters.
   */
  where?: (params: SqlParams) => string;
  /** The most cell bytes of the page (readRowPage): PAGE_BYTES unless said. */
  maxBytes?: number;
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
  /** What a column sorts by over `r` (the source's indexed keys); sortExpression when not given. */
  sortKey?: (column: RowColumn, params: SqlParams) => string;
  /** Every key `sortKey` gives has an index on (key ASC NULLS LAST, id) (and DESC), as rows' do. */
  indexedKeys?: boolean;
}

/**
 * A keyset page's statement over any source whose sort keys read `r.cells` (rows, tasks). Each part
 * of the rows after a cursor (partsAfterCursor) is read in the page's order up to the limit, and the
 * page is the first rows of their union: an index on the first key serves every part.
 */
export function keysetQuery(source: PageSource, request: PageRequest): { text: string; values: unknown[] } {
  const params = new SqlParams();
  const conditions = [source.scope(params)];
  const exprs = request.sort.map((k) => (source.sortKey ?? sortExpression)(k.column, params));
  if (request.where) conditions.push(request.where(params));
  const parts = request.cursor
    ? partsAfterCursor(
        request.sort,
        exprs,
        decodeCursor(request.cursor, request.sort, request.cursorPath),
        params,
        source.indexedKeys === true,
      )
    : ['TRUE'];
  const direction = (k: SortKey) => (k.desc ? 'DESC' : 'ASC');
  const order = [...request.sort.map((k, i) => `${exprs[i]} ${direction(k)} NULLS LAST`), 'r.id'];
  const limit = params.add(request.limit + 1);
  const select = (part: string) => `SELECT ${source.fields}${exprs.map((e, i) => `, ${e} AS s${i}`).join('')}
    FROM ${source.table} r WHERE ${[...conditions, part].join(' AND ')}
    ORDER BY ${order.join(', ')} LIMIT ${limit}`;
  if (parts.length === 1) return { text: select(parts[0]!), values: params.values };
  const outer = [...request.sort.map((k, i) => `s${i} ${direction(k)} NULLS LAST`), 'id'];
  const text = `SELECT * FROM (${parts.map((p) => `(${select(p)})`).join(' UNION ALL ')}) AS parts
    ORDER BY ${outer.join(', ')} LIMIT ${limit}`;
  return { text, values: params.values };
}

/** The cursor of the page after `rows` (read with limit + 1), null on the last page. */
export function nextCursorOf(
  rows: readonly ({ id: string } & Record<string, unknown>)[],
  request: PageRequest,
) {
  const last = rows[request.limit - 1];
  if (rows.length <= request.limit || !last) return null;
  return cursorAfter(last, request);
}

/** The cursor that goes on after `last`, a row read by the page's statement (its sort values as `s<i>`). */
export const cursorAfter = (last: { id: string } & Record<string, unknown>, request: PageRequest) =>
  Buffer.from(
    JSON.stringify({ s: sortText(request.sort), v: request.sort.map((_, i) => last[`s${i}`]), id: last.id }),
  ).toString('base64url');
