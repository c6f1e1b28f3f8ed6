import pg from 'pg';

// bigint columns (positions, revisions) come back as strings unless told otherwise; we convert
// explicitly where a bigint is meant, so the parsers stay pg's defaults.
export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export interface PoolLimits {
  max?: number;
  /**
   * How long to wait for a connection: a new one to open, or a pooled one to come free. Unbounded, a
   * database gone away (or a pool exhausted behind a lock) keeps every request waiting for ever.
   */
  connectTimeoutMs?: number;
  /**
   * PostgreSQL's `statement_timeout` for every connection of the pool (and the clients made from its
   * options): a statement waiting on a lock or running longer is cancelled (SQLSTATE 57014), and the
   * request answers 503 instead of hanging. Unset: no bound (operator tools, migrations, tests).
   */
  statementTimeoutMs?: number;
}

export function createPool(connectionString: string, limits: number | PoolLimits = {}): pg.Pool {
  const {
    max = 20,
    connectTimeoutMs,
    statementTimeoutMs,
  } = typeof limits === 'number' ? { max: limits } : limits;
  const pool = new pg.Pool({
    connectionString,
    max,
    idleTimeoutMillis: 30_000,
    // A server that vanished without closing its sockets is noticed by TCP keep-alive, not never.
    keepAlive: true,
    ...(connectTimeoutMs ? { connectionTimeoutMillis: connectTimeoutMs } : {}),
    ...(statementTimeoutMs ? { statement_timeout: statementTimeoutMs } : {}),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  // Nor a checked-out one between two queries (the server shutting down sends its FATAL then): pg-pool
  // listens only on idle clients. The holder's next query fails instead, and the pool drops the client
  // when it comes back.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}

/** Runs `fn` in a transaction on one client of the pool. */
export async function inTransaction<T>(pool: pg.Pool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A client whose ROLLBACK fails has lost its connection: it must not go back into the pool.
    broken = await client.query('ROLLBACK').then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    throw error;
  } finally {
    client.release(broken);
  }
}
