import { Agent, request } from 'undici';
import type { Pool } from '../../src/db/pool.ts';

/** Where an answer goes before its slot makes the next request (nothing: at once). */
export type Keep = (n: number, body: unknown) => Promise<void>;

/**
 * A column run's peers in bench:runs: `rows` requests to `${targetUrl}/r?n=...` at `concurrency` with
 * undici (keep-alive, one connection a slot), each slot taking the next request once its answer is
 * read (and kept, when `keep` is given). Rows per second.
 */
export async function callAll(
  targetUrl: string,
  options: { rows: number; concurrency: number; keep?: Keep },
): Promise<number> {
  const agent = new Agent({ connections: options.concurrency, keepAliveTimeout: 60_000 });
  const start = performance.now();
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (next < options.rows) {
          const n = next++;
          const res = await request(`${targetUrl}/r?n=${n}`, {
            dispatcher: agent,
            headers: { 'idempotency-key': `plain:${n}` },
          });
          const body = await res.body.json();
          if (res.statusCode !== 200) throw new Error(`the plain client got ${res.statusCode}`);
          await options.keep?.(n, body);
        }
      }),
    );
    return options.rows / ((performance.now() - start) / 1000);
  } finally {
    await agent.close();
  }
}

/**
 * Keeps each answer as a run's driver keeps a row's result, and nothing else: one insert at a time
 * (committed) into a table of its own, carrying every answer that came in while the one before was
 * under way; a slot goes on once its answer is in. What holding a slot until the result is stored
 * costs by itself, without the events, read models and bookkeeping of a real run.
 */
export async function storeEachAnswer(
  pool: Pool,
): Promise<{ emptied(): Promise<Keep>; drop(): Promise<void> }> {
  const table = 'bench_stored_answers';
  await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (n integer PRIMARY KEY, answer text NOT NULL)`);
  let waiting: { n: number; body: unknown; stored: () => void; failed: (e: unknown) => void }[] = [];
  let storing = false;
  const storeWaiting = async () => {
    storing = true;
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        await pool.query(`INSERT INTO ${table} (n, answer) SELECT * FROM unnest($1::int[], $2::text[])`, [
          batch.map((a) => a.n),
          batch.map((a) => JSON.stringify(a.body)),
        ]);
        for (const a of batch) a.stored();
      } catch (error) {
        for (const a of batch) a.failed(error);
      }
    }
    storing = false;
  };
  const keep: Keep = (n, body) =>
    new Promise<void>((stored, failed) => {
      waiting.push({ n, body, stored, failed });
      if (!storing) void storeWaiting();
    });
  return {
    /** The keep for one pass of requests, into the table emptied first (as each run starts with none). */
    async emptied() {
      await pool.query(`TRUNCATE ${table}`);
      return keep;
    },
    drop: async () => {
      await pool.query(`DROP TABLE IF EXISTS ${table}`);
    },
  };
}
