import * as assert from 'uvu/assert';
import {
  ROW_PAGES_BYTES,
  ROW_PAGES_BYTES_PER_ORGANIZATION,
  rowPagesMemory,
} from '../../../queries/rows/page-memory.ts';
import { PAGE_BYTES, parseSort, type RowPage, readRowPage } from '../../../queries/rows/row-page.ts';
import type { Pool } from '../../../src/db/pool.ts';
import { columnsByKey, type RowColumn } from '../../../src/domain/rows/cells.ts';
import { bearer, call } from '../../support/accounts.ts';
import { createColumns, insertRows, rowsPath } from '../../support/rows.ts';
import { createTable, tablesSuite } from '../../support/tables.ts';

/*
 * Issue 34, item 2: a page of rows is bounded by bytes as well as by rows, and the pages being read at
 * once hold at most a process-wide budget of bytes, of which one organization at most its share.
 */
const test = tablesSuite('rows API: pages bounded by bytes, and by a memory budget');

const TEXT = 100_000;
/** A text cell of the longest kind, told apart by its row. */
const big = (i: number) => `${String(i).padStart(6, '0')}${'x'.repeat(TEXT - 6)}`;

/** The table of 100 large rows the tests share, made by the first that needs it. */
let shared: Promise<{ tableId: string; ids: string[] }> | undefined;
const bigTableOnce = (t: Parameters<typeof insertRows>[0], key: string) => {
  shared ??= bigTable(t, key, 100);
  return shared;
};

async function bigTable(t: Parameters<typeof insertRows>[0], key: string, rows: number) {
  const tableId = await createTable(t, key, 'Big');
  await createColumns(t, key, tableId, { n: 'number', body: 'text' });
  const ids: string[] = [];
  for (let from = 0; from < rows; from += 40) {
    const batch = Array.from({ length: Math.min(40, rows - from) }, (_, j) => ({
      n: from + j,
      body: big(from + j),
    }));
    ids.push(...(await insertRows(t, key, tableId, batch)).map((r: { id: string }) => r.id));
  }
  return { tableId, ids };
}

type Page = { data: { id: string; cells: { n: number; body: string } }[]; nextCursor: string | null };

/** Every page of a read, following nextCursor from `first` (GET) or in the body (POST .../query). */
async function walk(read: (cursor: string | null) => Promise<Page>) {
  const pages: Page[] = [];
  let cursor: string | null = null;
  do {
    const page = await read(cursor);
    pages.push(page);
    cursor = page.nextCursor;
  } while (cursor && pages.length < 1_000);
  return pages;
}

const cellBytes = (page: Page) => page.data.reduce((sum, row) => sum + JSON.stringify(row.cells).length, 0);

test('a page of large cells stops by bytes before the limit; its cursor walks every row exactly once', async ({
  t,
  key,
}) => {
  const { tableId, ids } = await bigTableOnce(t.app, key);
  const get = async (query: string) => {
    const res = await call(t.app, 'GET', `${rowsPath(tableId)}?${query}`, { headers: bearer(key) });
    assert.is(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    return res.body as Page;
  };
  const first = await get('limit=1000');
  // 100 rows of 100,000 characters are about 10 MB: more than one page's bytes, fewer than its limit.
  assert.ok(first.data.length > 1 && first.data.length < 100, `${first.data.length} rows`);
  assert.ok(cellBytes(first) <= PAGE_BYTES, `${cellBytes(first)} bytes`);
  assert.ok(first.nextCursor, 'a page cut by bytes has a next page');

  const plain = await walk((cursor) => get(`limit=1000${cursor ? `&cursor=${cursor}` : ''}`));
  assert.ok(plain.length >= 3, `${plain.length} pages`);
  assert.equal(
    plain.flatMap((p) => p.data.map((r) => r.id)),
    ids,
    'every row once, in order',
  );
  for (const page of plain.slice(0, -1)) assert.ok(cellBytes(page) <= PAGE_BYTES);
  assert.is(plain.at(-1)?.nextCursor, null);
  for (const row of plain.flatMap((p) => p.data)) assert.is(row.cells.body, big(row.cells.n));

  // The same through POST .../rows/query, sorted, and with a limit the bytes end before.
  const sorted = await walk(async (cursor) => {
    const res = await call(t.app, 'POST', `${rowsPath(tableId)}/query`, {
      headers: bearer(key),
      body: { limit: 70, sort: '-n', ...(cursor ? { cursor } : {}) },
    });
    assert.is(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    return res.body as Page;
  });
  assert.equal(
    sorted.flatMap((p) => p.data.map((r) => r.cells.n)),
    Array.from({ length: 100 }, (_, i) => 99 - i),
  );
  // Small rows still fill a page to its limit.
  const small = await createTable(t.app, key, 'Small');
  await createColumns(t.app, key, small, { name: 'text' });
  await insertRows(
    t.app,
    key,
    small,
    Array.from({ length: 30 }, (_, i) => ({ name: `r${i}` })),
  );
  const res = await call(t.app, 'GET', `${rowsPath(small)}?limit=25`, { headers: bearer(key) });
  assert.is(res.body.data.length, 25);
  assert.ok(res.body.nextCursor);
});

/** readRowPage itself, over the test app's database, with a page's bytes set small. */
async function pages(
  t: { deps: { pool: Pool } },
  tableId: string,
  columns: RowColumn[],
  options: { limit: number; maxBytes?: number; sort?: string },
) {
  const sort = parseSort(options.sort, columnsByKey(columns), 'sort');
  const read: RowPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await readRowPage(t.deps.pool, tableId, columns, {
      limit: options.limit,
      cursor,
      sort,
      cursorPath: 'cursor',
      maxBytes: options.maxBytes,
    });
    read.push(page);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && read.length < 1_000);
  return read;
}

test('a row larger than a page of bytes is a page by itself; the rows after it start the next', async ({
  t,
  key,
}) => {
  const tableId = await createTable(t.app, key, 'Uneven');
  const made = await createColumns(t.app, key, tableId, { n: 'number', body: 'text' });
  const sizes = [3_000, 100, 100, 5_000, 100, 1_900, 100];
  const ids = (
    await insertRows(
      t.app,
      key,
      tableId,
      sizes.map((size, n) => ({ n, body: 'y'.repeat(size) })),
    )
  ).map((r: { id: string }) => r.id);
  const columns = [made.n, made.body];
  const read = await pages(t, tableId, columns, { limit: 10, maxBytes: 2_000 });
  assert.equal(
    read.map((page) => page.data.map((row) => ids.indexOf(row.id))),
    [[0], [1, 2], [3], [4], [5], [6]],
  );
  // Sorted the other way, the same cuts from the other end.
  const sorted = await pages(t, tableId, columns, { limit: 10, maxBytes: 2_000, sort: '-n' });
  assert.equal(
    sorted.map((page) => page.data.map((row) => row.cells.n)),
    [[6], [5], [4], [3], [2, 1], [0]],
  );
});

test('a page of many small rows is read in chunks and is the same page as one read', async ({ t, key }) => {
  const tableId = await createTable(t.app, key, 'Many');
  const made = await createColumns(t.app, key, tableId, { n: 'number', name: 'text' });
  const cells = Array.from({ length: 350 }, (_, n) => ({ n, name: `row ${n % 7}` }));
  const ids = (await insertRows(t.app, key, tableId, cells)).map((r: { id: string }) => r.id);
  const columns = [made.n, made.name];
  const whole = await pages(t, tableId, columns, { limit: 1_000 });
  assert.is(whole.length, 1);
  assert.equal(
    whole[0]!.data.map((row) => row.id),
    ids,
  );
  const sorted = await pages(t, tableId, columns, { limit: 300, sort: 'name,-n' });
  const expected = [...cells].sort((a, b) => a.name.localeCompare(b.name) || b.n - a.n).map((c) => c.n);
  assert.equal(
    sorted.map((page) => page.data.length),
    [300, 50],
  );
  assert.equal(
    sorted.flatMap((page) => page.data.map((row) => row.cells.n)),
    expected,
  );
  // Bytes small enough to cut within the chunks: every row still comes once, in order.
  const cut = await pages(t, tableId, columns, { limit: 1_000, maxBytes: 1_500, sort: 'name,-n' });
  assert.ok(cut.length > 10, `${cut.length} pages`);
  assert.equal(
    cut.flatMap((page) => page.data.map((row) => row.cells.n)),
    expected,
  );
});

test('many large reads at once hold at most the budget, one organization at most its share; others go on', async ({
  t,
  key,
  otherKey,
}) => {
  const { tableId } = await bigTableOnce(t.app, key);
  const otherTable = await createTable(t.app, otherKey, 'Other');
  await createColumns(t.app, otherKey, otherTable, { name: 'text' });
  await insertRows(t.app, otherKey, otherTable, [{ name: 'a' }, { name: 'b' }]);
  assert.is(rowPagesMemory.inUse, 0);
  rowPagesMemory.resetStats();

  const large = Array.from({ length: 8 }, () =>
    call(t.app, 'GET', `${rowsPath(tableId)}?limit=1000`, { headers: bearer(key) }),
  );
  const others = Array.from({ length: 4 }, (_, i) =>
    i % 2 === 0
      ? call(t.app, 'GET', rowsPath(otherTable), { headers: bearer(otherKey) })
      : call(t.app, 'GET', '/api/me', { headers: bearer(otherKey) }),
  );
  const answers = await Promise.all(large);
  const otherAnswers = await Promise.all(others);

  const firstIds = answers[0]!.body.data.map((r: { id: string }) => r.id);
  for (const answer of answers) {
    assert.is(answer.status, 200);
    assert.equal(
      answer.body.data.map((r: { id: string }) => r.id),
      firstIds,
    );
  }
  for (const answer of otherAnswers) assert.is(answer.status, 200);
  assert.equal(
    otherAnswers[0]!.body.data.map((r: { cells: { name: string } }) => r.cells.name),
    ['a', 'b'],
  );
  // The budget's own accounting: eight pages of about 4 MiB were asked for at once by one
  // organization; at most its share of them was held at any moment, so some had to wait.
  assert.ok(rowPagesMemory.peakPerGroup > PAGE_BYTES, `${rowPagesMemory.peakPerGroup}`);
  assert.ok(
    rowPagesMemory.peakPerGroup <= ROW_PAGES_BYTES_PER_ORGANIZATION,
    `${rowPagesMemory.peakPerGroup}`,
  );
  assert.ok(rowPagesMemory.peak <= ROW_PAGES_BYTES, `${rowPagesMemory.peak}`);
  assert.ok(rowPagesMemory.waits > 0, 'reads waited for their share');
  // Everything is given back once the answers are sent (their connections close on the next tick).
  await new Promise((resolve) => setImmediate(resolve));
  assert.is(rowPagesMemory.inUse, 0);
  assert.is(rowPagesMemory.queued, 0);
});

test.run();
