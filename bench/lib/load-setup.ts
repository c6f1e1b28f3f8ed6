import { bootstrapAccount } from '../../test/support/accounts.ts';
import { runAdmin } from '../../test/support/cli.ts';
import { generatedArticle } from '../../test/support/content-samples.ts';
import { createColumns, insertRows } from '../../test/support/rows.ts';
import { httpColumnTable } from '../../test/support/runs.ts';
import { createTable } from '../../test/support/tables.ts';
import { subscribe } from '../../test/support/webhooks.ts';

/** The service's CRON_SECRET in bench/load.ts: the full content sync is sent with it. */
export const CRON_SECRET = 'bench-cron-secret';

/** What the load benchmark's routes and column runs work on. */
export interface LoadFixture {
  key: string;
  /** The table the reads, PATCHes and inserts go to, and its `name` column. */
  tableId: string;
  nameColumnId: string;
  /** The table of the column runs: `runRows` rows, a `result` column GETting the target. */
  run: { tableId: string; resultColumnId: string };
  /** The slugs of the synced articles. */
  slugs: string[];
}

/**
 * Sets up the service for bench/load.ts over its API: an account with credits (granted by `stk admin`
 * on `databaseUrl`), a table of `rows` rows, a run table of `runRows` rows against `targetUrl`, a
 * row.created webhook subscription to `receiverUrl`, and a full content sync of `articles` articles.
 */
export async function setUpLoad(options: {
  url: string;
  databaseUrl: string;
  targetUrl: string;
  receiverUrl: string;
  rows: number;
  runRows: number;
  articles: number;
  log: (line: string) => void;
}): Promise<LoadFixture> {
  const { url } = options;
  const account = await bootstrapAccount(url);
  const key = account.apiKey;
  const granted = await runAdmin(options.databaseUrl, [
    'credits',
    'grant',
    account.organizationId,
    '1000000',
    '--reason',
    'load benchmark',
  ]);
  if (granted.code !== 0) throw new Error(`granting credits failed: ${granted.stderr}`);
  options.log('setting up: a table of rows, a run table, a webhook subscription, a full content sync');
  const tableId = await createTable(url, key, 'Load');
  const columns = await createColumns(url, key, tableId, { name: 'text', score: 'number' });
  for (let i = 0; i < options.rows; i += 500)
    await insertRows(
      url,
      key,
      tableId,
      // The last batch only what is left: the load's inserts are counted past exactly `rows`.
      Array.from({ length: Math.min(500, options.rows - i) }, (_, k) => ({
        name: `row ${i + k}`,
        score: i + k,
      })),
    );
  const run = await httpColumnTable(url, key, options.targetUrl, 8);
  await insertRows(
    url,
    key,
    run.tableId,
    Array.from({ length: options.runRows }, (_, i) => ({ n: String(i) })),
  );
  await subscribe(url, key, { url: options.receiverUrl, eventTypes: ['row.created'] });
  const full = await fetch(`${url}/api/content/sync`, {
    headers: { authorization: `Bearer ${CRON_SECRET}` },
  });
  if (full.status !== 200) throw new Error(`the full sync answered ${full.status}`);
  return {
    key,
    tableId,
    nameColumnId: columns.name.id,
    run: { tableId: run.tableId, resultColumnId: run.columns.result.id },
    slugs: Array.from({ length: options.articles }, (_, i) => generatedArticle(i, 0).slug),
  };
}
