import type { Pool } from '../../src/db/pool.ts';
import type { Answer } from '../../test/support/accounts.ts';
import { type HttpLoad, median } from './bench-app.ts';
import { processAndServerCpu, processAndServerSpent } from './cpu.ts';
import { alternatingRounds, summariseRounds } from './rounds.ts';
import { measureLoad } from './timing.ts';

/** One side of the query comparison: its name in the report, and one request to it. */
export interface QuerySide {
  name: string;
  call: () => Promise<Answer>;
}

/** One side at one count of callers, medians over the rounds; CPU in milliseconds a request. */
export interface QueryResult {
  callers: number;
  name: string;
  rps: number;
  p50: number;
  p99: number;
  node: number;
  pg: number;
}

/**
 * The query phase of bench/tasks.ts: for each count of callers in a closed loop, `rounds` alternating
 * rounds of every side (each side warmed up unmeasured before its first), with the CPU per request of
 * this process (the service and the callers: the same callers for both sides) and of the database
 * server's processes, which a busy machine disturbs far less than req/s. Sides in the order given.
 */
export async function measureQuerySides(options: {
  pool: Pool;
  sides: QuerySide[];
  callers: number[];
  rounds: number;
  seconds: number;
  warmupSeconds: number;
  log: (line: string) => void;
}): Promise<QueryResult[]> {
  const results: QueryResult[] = [];
  for (const callers of options.callers) {
    const rounds = new Map(
      options.sides.map((s) => [s.name, [] as (HttpLoad & { node: number; pg: number })[]]),
    );
    await alternatingRounds(options.sides, options.rounds, async (side, round) => {
      const load = {
        concurrency: callers,
        op: async () => {
          const res = await side.call();
          if (res.status !== 200) throw new Error(`${side.name} answered ${res.status}`);
          return 1;
        },
      };
      if (round === 0) await measureLoad({ ...load, seconds: options.warmupSeconds });
      const before = await processAndServerCpu(options.pool);
      const m = await measureLoad({ ...load, seconds: options.seconds });
      const spent = processAndServerSpent(before, await processAndServerCpu(options.pool));
      const perOp = (seconds: number | undefined) => ((seconds ?? Number.NaN) * 1000) / m.ops;
      const node = perOp(spent.node);
      const pg = perOp(spent.postgres);
      rounds.get(side.name)!.push({ rps: m.opsPerSec, p50: m.p50Ms, p99: m.p99Ms, node, pg });
      options.log(
        `${callers} callers, round ${round + 1}, ${side.name}: ${m.opsPerSec.toFixed(1)}/s, CPU ms/req node ${node.toFixed(2)} postgres ${pg.toFixed(2)}`,
      );
    });
    for (const [name, r] of rounds)
      results.push({
        callers,
        ...summariseRounds(name, r),
        node: median(r.map((x) => x.node)),
        pg: median(r.map((x) => x.pg)),
      });
  }
  return results;
}

/** The plan PostgreSQL chooses for a statement, run once: its index and row counts, without timings. */
export async function explainPlan(pool: Pool, text: string, values: unknown[]): Promise<string> {
  return (await pool.query(`EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, BUFFERS OFF) ${text}`, values)).rows
    .map((r) => r['QUERY PLAN'] as string)
    .join('\n');
}
