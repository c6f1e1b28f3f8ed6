import { randomBytes } from 'node:crypto';
import { migrate } from '../../src/db/migrate.ts';
import { createPool, type Pool } from '../../src/db/pool.ts';
import { onAdmin, openPgServer, withDatabase } from './pg-server.ts';

const TEMPLATE = 'stk_template';

export interface TestServer {
  /** URL of the server's maintenance database. */
  adminUrl: string;
  stop(): Promise<void>;
}

/**
 * One PostgreSQL per test run: the one at DATABASE_URL when given, else an embedded server in a
 * temporary directory. A migrated template database makes each suite's fresh database cheap.
 */
export async function startTestServer(log?: (line: string) => void): Promise<TestServer> {
  const { adminUrl, stop } = await openPgServer('test', log);
  await onAdmin(adminUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${TEMPLATE} WITH (FORCE)`);
    await c.query(`CREATE DATABASE ${TEMPLATE}`);
  });
  await migrate(withDatabase(adminUrl, TEMPLATE));
  return { adminUrl, stop };
}

let shared: Promise<string> | undefined;

/** The admin URL of the run's server: set by test/run.ts, or started here when a suite runs alone. */
function serverUrl(): Promise<string> {
  shared ??= (async () => {
    if (process.env.STK_TEST_ADMIN_URL) return process.env.STK_TEST_ADMIN_URL;
    const server = await startTestServer();
    process.once('beforeExit', () => void server.stop());
    process.env.STK_TEST_ADMIN_URL = server.adminUrl;
    return server.adminUrl;
  })();
  return shared;
}

export interface TestDatabase {
  url: string;
  pool: Pool;
  drop(): Promise<void>;
}

/**
 * Run before each test database is dropped, its pool still open (test/support/secret-scan.ts
 * searches its events there).
 */
export const beforeDrop: ((database: { url: string; pool: Pool }) => Promise<void>)[] = [];

/** A new database with every migration applied, seen by nobody else. */
export async function freshDatabase(): Promise<TestDatabase> {
  const adminUrl = await serverUrl();
  const name = `t_${randomBytes(6).toString('hex')}`;
  await onAdmin(adminUrl, (c) => c.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE}`));
  const url = withDatabase(adminUrl, name);
  const pool = createPool(url);
  return {
    url,
    pool,
    drop: async () => {
      for (const hook of beforeDrop) await hook({ url, pool });
      await pool.end();
      await onAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}
