import { ROWS } from '../../projections/rows/rows.ts';
import type { Reservation } from '../../src/byte-budget.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { RowColumn } from '../../src/domain/rows/cells.ts';
import { columnKey } from '../../src/domain/rows/keys.ts';
import type { CellStatus } from '../../src/domain/rows/row-state.ts';
import { SqlParams } from '../../src/domain/rows/sql-params.ts';
import { rowView } from '../../src/domain/rows/view.ts';
import { cursorAfter, keysetQuery, type PageRequest, type RowPage } from './keyset.ts';

export {
  keysetQuery,
  MAX_SORT_KEYS,
  nextCursorOf,
  type PageRequest,
  type PageSource,
  parseSort,
  type RowPage,
  type SortKey,
} from './keyset.ts';

/**
 * The page's statement and its parameters (the benchmark's bare route runs the same). Rows sort by
 * the keys their table's partition indexes (src/domain/rows/keys.ts).
 */
export const pageQuery = (tableId: string, request: PageRequest) =>
  keysetQuery(
    {
      // The cells as text once: their size bounds the page, and the same text is what is sent.
      fields: 'id, cells::text AS cells, cell_status, created_at, updated_at',
      table: ROWS,
      scope: (params) => `r.table_id = ${params.add(tableId)}`,
      sortKey: (column) => columnKey(column.dataType, column.id),
      indexedKeys: true,
    },
    request,
  );

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

export interface RowPageRequest extends PageRequest {
  /**
   * SQL true while what the request was read against still holds (the table's columns as cached,
   * queries/rows/table-columns.ts): the page's first statement reads no row when it is not.
   */
  guard?: (params: SqlParams) => string;
}

/**
 * A time of the read model as UTC text (`2024-03-01 08:00:00.12`: ISO date style, trailing zeros of
 * the fraction dropped), which isoTime makes `Date#toISOString`'s form: no date is parsed or formatted
 * in the process, and PostgreSQL's text of a time costs a tenth of a to_char.
 */
const utcTimeSql = (column: string) => `(${column} AT TIME ZONE 'UTC')::text`;

/** `Date#toISOString` of a time as utcTimeSql writes it (milliseconds: the stored times have no more). */
export function isoTime(utc: string): string {
  const fraction = utc.length > 20 ? utc.slice(20, 23).padEnd(3, '0') : '000';
  return `${utc.slice(0, 10)}T${utc.slice(11, 19)}.${fraction}Z`;
}

/** A row as a page's statement returns it: times as utcTimeSql's text, sort values `s<i>`. */
interface PageRow extends Record<string, unknown> {
  id: string;
  /** The cells' JSON text (null after the cut). */
  cells: string | null;
  cell_status: Record<string, CellStatus> | null;
  created_at: string;
  updated_at: string;
  page_bytes: number;
  page_in: boolean;
}

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
 * first whatever its size when `firstAlways`. Of the rows after the cut only the first comes back,
 * without its cells (it says that more rows follow, and its size how large rows are); no window
 * over every row read is kept, and the rows come out in the order the window reads them.
 */
function chunkQuery(
  tableId: string,
  request: RowPageRequest,
  maxBytes: number,
  firstAlways: boolean,
  guard?: RowPageRequest['guard'],
) {
  const { text, values } = pageQuery(tableId, request);
  const params = new SqlParams();
  params.values.push(...values);
  const order = (alias: string) =>
    [
      ...request.sort.map((k, i) => `${alias}.s${i} ${k.desc ? 'DESC' : 'ASC'} NULLS LAST`),
      `${alias}.id`,
    ].join(', ');
  const size = [
    'octet_length(k.cells)',
    ...request.sort.map((_, i) => `coalesce(octet_length(k.s${i}::text), 0)`),
  ].join(' + ');
  const sent = (field: string) => `CASE WHEN p.page_in THEN p.${field} END AS ${field}`;
  const fields = [
    'p.id',
    sent('cells'),
    sent('cell_status'),
    `${utcTimeSql('p.created_at')} AS created_at`,
    `${utcTimeSql('p.updated_at')} AS updated_at`,
    ...request.sort.map((_, i) => sent(`s${i}`)),
  ];
  const budget = params.add(maxBytes, 'bigint');
  const first = params.add(firstAlways, 'boolean');
  const guarded = guard ? `${guard(params)} AND ` : '';
  return {
    text: `SELECT ${fields.join(', ')}, p.page_bytes, p.page_in FROM (
        SELECT k.*, b.bytes AS page_bytes, row_number() OVER w AS page_n,
          sum(b.bytes) OVER w - b.bytes AS page_before,
          (sum(b.bytes) OVER w <= ${budget} OR (row_number() OVER w = 1 AND ${first})) AS page_in
        FROM (${text}) k CROSS JOIN LATERAL (SELECT ${size} AS bytes) b
        WINDOW w AS (ORDER BY ${order('k')} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
      ) p WHERE ${guarded}(p.page_in OR p.page_before <= ${budget} OR p.page_n <= 2)
      ORDER BY ${order('p')}`,
    values: params.values,
  };
}

async function readChunk(
  pool: Pool,
  tableId: string,
  request: RowPageRequest,
  maxBytes: number,
  firstAlways: boolean,
  guard?: RowPageRequest['guard'],
): Promise<BoundedRead> {
  const { text, values } = chunkQuery(tableId, request, Math.max(0, maxBytes), firstAlways, guard);
  const read = (await pool.query<PageRow>(text, values)).rows;
  const rows: PageRow[] = [];
  let bytes = 0;
  let readBytes = 0;
  for (const row of read) {
    readBytes += row.page_bytes;
    if (row.page_in && rows.length < request.limit) {
      rows.push(row);
      bytes += row.page_bytes;
    }
  }
  return {
    rows,
    bytes,
    more: read.length > rows.length,
    cutByBytes: rows.length < Math.min(read.length, request.limit),
    meanBytes: read.length > 0 ? readBytes / read.length : undefined,
  };
}

/**
 * A page of at most `request.limit` rows and `maxBytes` of cells, read in chunks: the first of
 * FIRST_CHUNK_ROWS rows (or as many as `meanBytes`, the size of rows read before, says will fit), the
 * next ones going on from the last row read, each as large as the rows so far say the bytes left
 * allow (at most twice the rows read so far, in case the rows grow). `guard` goes with the first only.
 */
async function readBounded(
  pool: Pool,
  tableId: string,
  request: RowPageRequest,
  maxBytes: number,
  firstAlways: boolean,
  meanBytes?: number,
  guard?: RowPageRequest['guard'],
): Promise<BoundedRead> {
  const rows: PageRow[] = [];
  let bytes = 0;
  let mean = meanBytes;
  const fitting = (cap: number) =>
    mean === undefined || mean <= 0 ? cap : Math.min(cap, Math.ceil((maxBytes - bytes) / mean) + 1);
  let chunk = Math.max(1, fitting(Math.min(request.limit, FIRST_CHUNK_ROWS)));
  let cursor = request.cursor;
  let firstGuard = guard;
  for (;;) {
    const read = await readChunk(
      pool,
      tableId,
      { ...request, cursor, limit: chunk },
      maxBytes - bytes,
      firstAlways && rows.length === 0,
      firstGuard,
    );
    firstGuard = undefined;
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

/**
 * One page of a table's rows, with the cursor of the next one (null on the last page): at most
 * `limit` rows and at most `maxBytes` (PAGE_BYTES) of cells, the first row whatever its size. With
 * `memory`, the bytes read are held there until the caller releases them (when the answer has been
 * sent): first FIRST_READ_BYTES, and a whole page's share only for a page that needs more, read
 * again once it is held. With `request.guard`, a page whose first statement found it false is empty.
 */
export async function readRowPage(
  pool: Pool,
  tableId: string,
  columns: readonly RowColumn[],
  request: RowPageRequest,
  memory?: PageMemory,
): Promise<RowPage> {
  const maxBytes = request.maxBytes ?? PAGE_BYTES;
  const { guard } = request;
  let read: BoundedRead;
  if (!memory || maxBytes <= FIRST_READ_BYTES) {
    const held = await memory?.acquire(maxBytes);
    read = await readBounded(pool, tableId, request, maxBytes, true, undefined, guard);
    held?.resize(read.bytes);
  } else {
    let held = await memory.acquire(FIRST_READ_BYTES);
    read = await readBounded(pool, tableId, request, FIRST_READ_BYTES, false, undefined, guard);
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
  const data = read.rows.map((row) =>
    rowView(columns, {
      id: row.id,
      cells: row.cells === null ? {} : JSON.parse(row.cells),
      statuses: row.cell_status ?? {},
      createdAt: isoTime(row.created_at),
      updatedAt: isoTime(row.updated_at),
    }),
  );
  return { data, nextCursor };
}
