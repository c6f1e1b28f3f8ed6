import Fastify from 'fastify';
import type { Pool } from '../../src/db/pool.ts';
import { listenOnLoopback } from './bench-app.ts';
import { type FILTER, HAND_WRITTEN, LIMIT } from './tasks-workload.ts';

export interface BareTasks {
  url: string;
  close(): Promise<void>;
}

/**
 * The baseline of bench/tasks.ts: POST /bare/query on a Fastify instance of its own, in this process,
 * running HAND_WRITTEN on the API's own pool for the tasks of `organizationId`. Sent the same request
 * as the API (so that both sides' callers do the same work), it takes the assignee and the due time
 * from the filter as a hand-written endpoint would, and trusts the rest.
 */
export async function serveBareTasks(pool: Pool, organizationId: string): Promise<BareTasks> {
  const bare = Fastify();
  bare.post('/bare/query', async (request) => {
    const { filter } = request.body as { filter: typeof FILTER };
    const { rows } = await pool.query(HAND_WRITTEN, [
      organizationId,
      filter.filters[2]!.value,
      filter.filters[3]!.value,
    ]);
    return { data: rows.slice(0, LIMIT).map((r) => r.cells) };
  });
  const url = await listenOnLoopback(bare);
  return { url, close: () => bare.close() };
}
