import type { ContentApiClient } from '../../src/content-api/client.ts';
import { PAGE_SIZE } from '../../src/content-api/client.ts';
import type { Pool } from '../../src/db/pool.ts';
import { GroupCommit } from '../../src/group-commit.ts';
import { type CpuSnapshot, cpuSnapshot, cpuSpent } from './cpu.ts';
import { timed } from './timing.ts';

/**
 * Every list page and every article, with the sync's own client and limits. With no `store`, nothing is
 * kept: the "fetch only" baseline. With one, each article is handed to it as soon as it arrives.
 */
export async function fetchAll(
  client: ContentApiClient,
  store?: (raw: unknown) => Promise<unknown>,
): Promise<number> {
  const details: Promise<unknown>[] = [];
  for (let offset = 0; ; offset += PAGE_SIZE) {
    const { items } = await client.listPage(offset);
    for (const item of items) {
      const fetched = client.getArticle((item as { slug: string }).slug);
      details.push(store ? fetched.then(({ raw }) => store(raw)) : fetched);
    }
    if (items.length < PAGE_SIZE) break;
  }
  await Promise.all(details);
  return details.length;
}

/**
 * The floor for any design that keeps an event and a page row per article in one PostgreSQL: the same
 * fetches, and each article's JSON written as it arrives into two plain tables (a jsonb "log" and a
 * slug/html "row"), in batches of 100 with two in flight, as the sync batches; one statement per batch
 * for both tables. No validation, hashing, reading back, stream revisions or projection.
 */
export async function fetchAndInsertRaw(client: ContentApiClient, pool: Pool): Promise<number> {
  await pool.query(`DROP TABLE IF EXISTS floor_log, floor_rows;
    CREATE TABLE floor_log (position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, data jsonb NOT NULL);
    CREATE TABLE floor_rows (slug text PRIMARY KEY, html text NOT NULL);
    ALTER TABLE floor_rows ALTER COLUMN html SET STORAGE EXTERNAL;`);
  const writer = new GroupCommit(
    async (articles: unknown[]) => {
      await pool.query(
        `WITH input AS (SELECT value FROM jsonb_array_elements($1::jsonb)),
              logged AS (INSERT INTO floor_log (data) SELECT value FROM input)
         INSERT INTO floor_rows (slug, html) SELECT value->>'slug', value->>'html' FROM input
         ON CONFLICT (slug) DO UPDATE SET html = EXCLUDED.html`,
        [JSON.stringify(articles)],
      );
      return articles.map(() => undefined);
    },
    { maxBatch: 100, maxInFlight: 2 },
  );
  try {
    return await fetchAll(client, (raw) => writer.submit(raw));
  } finally {
    await pool.query('DROP TABLE IF EXISTS floor_log, floor_rows');
  }
}

export interface Measured<T> {
  value: T;
  seconds: number;
  cpu: CpuSnapshot;
}

/** `timed`, plus the CPU seconds this process, the fake content API and PostgreSQL spent meanwhile. */
export async function measured<T>(fakePid: number | undefined, fn: () => Promise<T>): Promise<Measured<T>> {
  const before = cpuSnapshot(fakePid);
  const result = await timed(fn);
  return { ...result, cpu: cpuSpent(before, cpuSnapshot(fakePid)) };
}

export const CPU_HEADERS = [
  'CPU seconds',
  'wall',
  'Node (this process)',
  'PostgreSQL',
  'fake API',
  'total',
  'cores busy',
];

export function cpuRow(name: string, m: { seconds: number; cpu: CpuSnapshot }): string[] {
  const s = (v?: number) => (v === undefined ? 'n/a' : v.toFixed(2));
  const total = m.cpu.node + (m.cpu.child ?? 0) + (m.cpu.postgres ?? 0);
  return [
    name,
    s(m.seconds),
    s(m.cpu.node),
    s(m.cpu.postgres),
    s(m.cpu.child),
    s(total),
    (total / m.seconds).toFixed(2),
  ];
}
