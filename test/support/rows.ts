import { bearer, call, type Target } from './accounts.ts';
import { createColumn } from './tables.ts';

export const rowsPath = (tableId: string) => `/api/tables/${tableId}/rows`;
export const rowPath = (tableId: string, rowId: string) => `${rowsPath(tableId)}/${rowId}`;

/** Inserts rows (cells by key) and returns them as answered (throws on anything but 201). */
export async function insertRows(
  target: Target,
  apiKey: string,
  tableId: string,
  cells: Record<string, unknown>[],
  // biome-ignore lint/suspicious/noExplicitAny: rows are arbitrary JSON that tests pick apart
): Promise<any[]> {
  const res = await call(target, 'POST', rowsPath(tableId), {
    headers: bearer(apiKey),
    body: { rows: cells.map((c) => ({ cells: c })) },
  });
  if (res.status !== 201) throw new Error(`inserting rows failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Inserts `count` rows, the cells of row `i` by `cellsAt(i)`, in batches of 1,000 (the most a request takes). */
export async function insertMany(
  target: Target,
  apiKey: string,
  tableId: string,
  count: number,
  cellsAt: (i: number) => Record<string, unknown>,
): Promise<void> {
  for (let from = 0; from < count; from += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - from) }, (_, j) => cellsAt(from + j));
    await insertRows(target, apiKey, tableId, batch);
  }
}

/** Columns of the given data types (input unless said), keyed as given; returns them by key. */
export async function createColumns(
  target: Target,
  apiKey: string,
  tableId: string,
  columns: Record<string, string | { dataType: string; kind?: string; config?: object; autoRun?: string }>,
  // biome-ignore lint/suspicious/noExplicitAny: columns are arbitrary JSON that tests pick apart
): Promise<Record<string, any>> {
  const made: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(columns)) {
    const {
      dataType,
      kind = 'input',
      config,
      autoRun,
    } = typeof spec === 'string' ? { dataType: spec } : spec;
    made[key] = await createColumn(target, apiKey, tableId, {
      label: key,
      key,
      kind,
      dataType,
      config,
      autoRun,
    });
  }
  // biome-ignore lint/suspicious/noExplicitAny: as above
  return made as Record<string, any>;
}

/** Every row of a table, page after page (`query` is added to each page's URL). */
// biome-ignore lint/suspicious/noExplicitAny: as above
export async function listAll(target: Target, apiKey: string, tableId: string, query = ''): Promise<any[]> {
  // biome-ignore lint/suspicious/noExplicitAny: as above
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const url: string = `${rowsPath(tableId)}?${query}${cursor ? `&cursor=${cursor}` : ''}`;
    const res = await call(target, 'GET', url, { headers: bearer(apiKey) });
    if (res.status !== 200) throw new Error(`listing rows failed: ${res.status} ${JSON.stringify(res.body)}`);
    rows.push(...res.body.data);
    cursor = res.body.nextCursor;
  } while (cursor);
  return rows;
}
