import { ROW_FIELDS, ROWS, type RowRecord, storedFromRow } from '../../projections/rows/rows.ts';
import type { Reservation } from '../../src/byte-budget.ts';
import type { Pool } from '../../src/db/pool.ts';
import { invalidInput } from '../../src/domain/rows/access.ts';
import type { RowColumn } from '../../src/domain/rows/cells.ts';
import { typedCell } from '../../src/domain/rows/condition/sql.ts';
import { columnKey } from '../../src/domain/rows/keys.ts';
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
): string[] {
  const [first, ...rest] = sort;
  const firstExpr = exprs[0]!;
  const restAfter = () => afterCursor(rest, exprs.slice(1), { ...cursor, v: cursor.v.slice(1) }, params);
  if (!first) return [afterCursor(sort, exprs, cursor, params)];
  if (cursor.v[0] === null) return [`${firstExpr} IS NULL AND ${restAfter()}`];
  const v = cursorParam(first, cursor.v[0], params);
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

/**
 * The page's statement and its parameters (the benchmark's bare route runs the same). Rows sort by
 * the keys their table's partition indexes (src/domain/rows/keys.ts).
 */
export const pageQuery = (tableId: string, request: PageRequest) =>
  keysetQuery(
    {
      fields: ROW_FIELDS,
      table: ROWS,
      scope: (params) => `r.table_id = ${params.add(tableId)}`,
      sortKey: (column) => columnKey(column.dataType, column.id),
    },
    request,
  );

/** The cursor of the page after `rows` (read with limit + 1), null on the last page. */
export function nextCursorOf(
  rows: readonly ({ id: string } & Record<string, unknown>)[],
  request: PageRequest,
) {
  const last = rows[request.limit - 1];
  if (rows.length <= request.limit || !last) return null;
  return cursorAfter(last, request);
}

/**
 * The most cell data one page carries: the bytes of its rows' cells (and sort values) as PostgreSQL
 * writes them as JSON. A page stops before the row that would take it past this, whatever the limit,
 * and `nextCursor` goes on from there; a row larger than this on its own is a page by itself.
 */
export const PAGE_BYTES = 4 * 1024 * 1024;

/**
 * What a read holds from the memory budget before it knows its page's size: a page of small rows fits
 * in it and is read at once; a page that does not is read again holding a whole page's share.
 */
export const FIRST_READ_BYTES = 1024 * 1024;

/**
 * The rows a page's first statement reads (the default limit): sizing a row costs PostgreSQL its
 * cells' JSON, so a page reads its rows in chunks, each sized from the rows read before, rather than
 * sizing all of a large limit to keep a few.
 */
const FIRST_CHUNK_ROWS = 100;

/** Where a read holds the bytes it brings into the process (queries/rows/page-memory.ts). */
export interface PageMemory {
  acquire(bytes: number): Promise<Reservation>;
}

type PageRow = RowRecord & Record<string, unknown>;

interface BoundedRead {
  rows: PageRow[];
  /** Cell bytes of `rows`. */
  bytes: number;
  /** Whether rows follow the last of `rows` (beyond the limit, or beyond the bytes). */
  more: boolean;
  /** The bytes, not the limit or the end of the rows, ended the page. */
  cutByBytes: boolean;
  /** The mean size of the rows sized, sent or not: how many rows the next statement should read. */
  meanBytes?: number;
}

/**
 * One chunk of a page: the keyset statement (its `limit + 1` rows), then over those rows only each
 * row's size and the running total, which decide the rows sent: those within `maxBytes`, and the
 * first whatever its size when `firstAlways`. The rows after the cut are not sent, except the first
 * row's id when it is not (so that the answer says how many rows were read, and their bytes).
 */
function chunkQuery(tableId: string, request: PageRequest, maxBytes: number, firstAlways: boolean) {
  const { text, values } = pageQuery(tableId, request);
  const order = [...request.sort.map((k, i) => `k.s${i} ${k.desc ? 'DESC' : 'ASC'} NULLS LAST`), 'k.id'];
  const size = [
    'octet_length(k.cells::text)',
    ...request.sort.map((_, i) => `coalesce(octet_length(k.s${i}::text), 0)`),
  ].join(' + ');
  const sent = (field: string) => `CASE WHEN p.page_in THEN p.${field} END AS ${field}`;
  const fields = [
    ...ROW_FIELDS.split(',').map((f) => (f.trim() === 'cells' ? sent('cells') : `p.${f.trim()}`)),
    ...request.sort.map((_, i) => sent(`s${i}`)),
  ];
  const budget = `$${values.length + 1}::bigint`;
  const first = `$${values.length + 2}::boolean`;
  return {
    text: `SELECT ${fields.join(', ')}, p.page_bytes, p.page_in, p.page_read, p.page_read_bytes FROM (
        SELECT k.*, b.bytes AS page_bytes, row_number() OVER w AS page_n,
          count(*) OVER () AS page_read, sum(b.bytes) OVER () AS page_read_bytes,
          (sum(b.bytes) OVER w <= ${budget} OR (row_number() OVER w = 1 AND ${first})) AS page_in
        FROM (${text}) k CROSS JOIN LATERAL (SELECT ${size} AS bytes) b
        WINDOW w AS (ORDER BY ${order.join(', ')} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
      ) p WHERE p.page_in OR p.page_n = 1 ORDER BY p.page_n`,
    values: [...values, maxBytes, firstAlways],
  };
}

async function readChunk(
  pool: Pool,
  tableId: string,
  request: PageRequest,
  maxBytes: number,
  firstAlways: boolean,
): Promise<BoundedRead> {
  const { text, values } = chunkQuery(tableId, request, Math.max(0, maxBytes), firstAlways);
  const result = await pool.query<PageRow>(text, values);
  const head = result.rows[0];
  const read = head ? Number(head.page_read) : 0;
  const rows = result.rows.filter((row) => row.page_in === true).slice(0, request.limit);
  return {
    rows,
    bytes: rows.reduce((sum, row) => sum + Number(row.page_bytes), 0),
    more: read > rows.length,
    cutByBytes: rows.length < Math.min(read, request.limit),
    meanBytes: head ? Number(head.page_read_bytes) / read : undefined,
  };
}

/**
 * A page of at most `request.limit` rows and `maxBytes` of cells, read in chunks: the first of
 * FIRST_CHUNK_ROWS rows (or as many as `meanBytes`, the size of rows read before, says will fit), the
 * next ones going on from the last row read, each as large as the rows so far say the bytes left
 * allow (at most twice the rows read so far, in case the rows grow).
 */
async function readBounded(
  pool: Pool,
  tableId: string,
  request: PageRequest,
  maxBytes: number,
  firstAlways: boolean,
  meanBytes?: number,
): Promise<BoundedRead> {
  const rows: PageRow[] = [];
  let bytes = 0;
  let mean = meanBytes;
  const fitting = (cap: number) =>
    mean === undefined || mean <= 0 ? cap : Math.min(cap, Math.ceil((maxBytes - bytes) / mean) + 1);
  let chunk = Math.max(1, fitting(Math.min(request.limit, FIRST_CHUNK_ROWS)));
  let cursor = request.cursor;
  for (;;) {
    const read = await readChunk(
      pool,
      tableId,
      { ...request, cursor, limit: chunk },
      maxBytes - bytes,
      firstAlways && rows.length === 0,
    );
    rows.push(...read.rows);
    bytes += read.bytes;
    mean = read.meanBytes ?? mean;
    const left = request.limit - rows.length;
    const last = rows.at(-1);
    if (read.cutByBytes || !read.more || left === 0 || !last) {
      return { rows, bytes, more: read.more, cutByBytes: read.cutByBytes, meanBytes: mean };
    }
    cursor = cursorAfter(last, request);
    chunk = Math.max(1, fitting(Math.min(left, 2 * rows.length)));
  }
}

/** The cursor that goes on after `last`, a row read by the page's statement. */
const cursorAfter = (last: { id: string } & Record<string, unknown>, request: PageRequest) =>
  Buffer.from(
    JSON.stringify({ s: sortText(request.sort), v: request.sort.map((_, i) => last[`s${i}`]), id: last.id }),
  ).toString('base64url');

/**
 * One page of a table's rows, with the cursor of the next one (null on the last page): at most
 * `limit` rows and at most `maxBytes` (PAGE_BYTES) of cells, the first row whatever its size. With
 * `memory`, the bytes read are held there until the caller releases them (when the answer has been
 * sent): first FIRST_READ_BYTES, and a whole page's share only for a page that needs more, read
 * again once it is held.
 */
export async function readRowPage(
  pool: Pool,
  tableId: string,
  columns: readonly RowColumn[],
  request: PageRequest,
  memory?: PageMemory,
): Promise<RowPage> {
  const maxBytes = request.maxBytes ?? PAGE_BYTES;
  let read: BoundedRead;
  if (!memory || maxBytes <= FIRST_READ_BYTES) {
    const held = await memory?.acquire(maxBytes);
    read = await readBounded(pool, tableId, request, maxBytes, true);
    held?.resize(read.bytes);
  } else {
    let held = await memory.acquire(FIRST_READ_BYTES);
    read = await readBounded(pool, tableId, request, FIRST_READ_BYTES, false);
    if (read.cutByBytes) {
      // The small share and what it read are let go before waiting: waiters holding small shares
      // while they wait for large ones could hold every share between them.
      held.release();
      const { meanBytes } = read;
      read = { rows: [], bytes: 0, more: true, cutByBytes: true };
      held = await memory.acquire(maxBytes);
      read = await readBounded(pool, tableId, request, maxBytes, true, meanBytes);
    }
    held.resize(read.bytes);
  }
  const last = read.rows.at(-1);
  const nextCursor = read.more && last ? cursorAfter(last, request) : null;
  return { data: read.rows.map((row) => rowView(columns, storedFromRow(row))), nextCursor };
}
