/**
 * What the database spent per statement between two readings, from pg_stat_statements when the server
 * loads it (`shared_preload_libraries`); where it does not, nothing is measured (undefined). Less
 * sensitive to a busy machine than a rate: calls per unit of work do not depend on the load at all,
 * and each statement's share of the time says which one to cut.
 */

interface Db {
  query<R>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

interface StatementRow {
  queryid: string;
  query: string;
  calls: number;
  ms: number;
}

export type StatementsReading = Map<string, StatementRow>;

/** The statements of this database so far (top-level ones: a function's own statements are in its call). */
export async function readStatements(db: Db): Promise<StatementsReading | undefined> {
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    const { rows } = await db.query<StatementRow>(
      `SELECT queryid::text AS queryid, query, calls::float8 AS calls, total_exec_time AS ms
       FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND toplevel`,
    );
    return new Map(rows.map((r) => [r.queryid, r]));
  } catch {
    // Not loaded by this server (the extension needs a restart with the library preloaded).
    return undefined;
  }
}

/** The statements between two readings, most time first: calls and milliseconds per unit of work. */
export function statementsSpent(
  before: StatementsReading | undefined,
  after: StatementsReading | undefined,
  units: number,
  top = 12,
): string | undefined {
  if (!before || !after) return undefined;
  const spent = [...after.values()]
    .map((s) => {
      const earlier = before.get(s.queryid);
      return { query: s.query, calls: s.calls - (earlier?.calls ?? 0), ms: s.ms - (earlier?.ms ?? 0) };
    })
    .filter((s) => s.calls > 0)
    .sort((a, b) => b.ms - a.ms);
  const total = spent.reduce((sum, s) => ({ calls: sum.calls + s.calls, ms: sum.ms + s.ms }), {
    calls: 0,
    ms: 0,
  });
  const line = (s: { calls: number; ms: number }, query: string) =>
    `${(s.calls / units).toFixed(3).padStart(8)} calls ${(s.ms / units).toFixed(3).padStart(7)} ms  ${query
      .replace(/\s+/g, ' ')
      .slice(0, 110)}`;
  return [
    line(total, 'all statements (per unit of work)'),
    ...spent.slice(0, top).map((s) => line(s, s.query)),
  ].join('\n');
}
