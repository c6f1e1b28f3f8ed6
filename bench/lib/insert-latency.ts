import { bearer, call, type Target } from '../../test/support/accounts.ts';
import { createColumns, insertRows, rowPath } from '../../test/support/rows.ts';
import { createTable } from '../../test/support/tables.ts';
import { percentile } from './timing.ts';

/** Between two looks at one row: many rows are outstanding at once, and each look is a request. */
const POLL_GAP_MS = 5;

export interface InsertLatency {
  rows: number;
  p50Ms: number;
  p99Ms: number;
  /** How long one look at an outstanding row took (median); with the gap between looks, the resolution. */
  pollMs: number;
}

/**
 * The time from a row insert to its `onInsert` result being readable: a table whose `result` column
 * (http_request against `targetUrl`, auto-run onInsert) runs each new row; rows are inserted one per
 * request, `perSecond` a second, and each row is read back (GET the row, as a client would) until its
 * cell is `done`. Timed from sending the insert to the read that shows the value.
 */
export async function measureInsertLatency(options: {
  url: Target;
  apiKey: string;
  targetUrl: string;
  rows: number;
  perSecond: number;
}): Promise<InsertLatency> {
  const { url, apiKey } = options;
  const tableId = await createTable(url, apiKey);
  await createColumns(url, apiKey, tableId, {
    n: 'text',
    result: {
      dataType: 'json',
      kind: 'enrichment',
      autoRun: 'onInsert',
      config: { provider: 'http_request', method: 'GET', url: `${options.targetUrl}/r?n={{n}}` },
    },
  });
  const latencies: number[] = [];
  const polls: number[] = [];
  const readable = async (rowId: string, sent: number) => {
    for (;;) {
      const start = performance.now();
      const res = await call(url, 'GET', rowPath(tableId, rowId), { headers: bearer(apiKey) });
      polls.push(performance.now() - start);
      const status = res.body?.cellStatus?.result?.status;
      if (status === 'done' && res.body.cells?.result !== undefined) {
        latencies.push(performance.now() - sent);
        return;
      }
      if (status === 'error' || status === 'skipped') throw new Error(`row ${rowId} ended ${status}`);
      await new Promise((r) => setTimeout(r, POLL_GAP_MS));
    }
  };
  const waits: Promise<void>[] = [];
  const gapMs = 1000 / options.perSecond;
  const begin = performance.now();
  for (let i = 0; i < options.rows; i++) {
    const due = begin + i * gapMs;
    const early = due - performance.now();
    if (early > 0) await new Promise((r) => setTimeout(r, early));
    const sent = performance.now();
    const [row] = await insertRows(url, apiKey, tableId, [{ n: `insert-${i}` }]);
    waits.push(readable(row.id, sent));
  }
  await Promise.all(waits);
  const sorted = latencies.sort((a, b) => a - b);
  return {
    rows: options.rows,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    pollMs: percentile(
      polls.sort((a, b) => a - b),
      50,
    ),
  };
}
