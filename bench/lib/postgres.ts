import { randomBytes } from 'node:crypto';
import { migrate } from '../../src/db/migrate.ts';
import { onAdmin, openPgServer, type PgServer, withDatabase } from '../../test/support/pg-server.ts';

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

export interface BenchServer {
  /** Where the server came from, for the report: `embedded` or `DATABASE_URL`. */
  origin: PgServer['origin'];
  version: string;
  /** A new, empty database (migrated when asked), dropped again by `drop` or by `stop`. */
  createDatabase(prefix: string, options?: { migrate?: boolean }): Promise<BenchDatabase>;
  /** Flushes dirty pages so that a checkpoint started by one measurement does not land in the next. */
  checkpoint(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * One PostgreSQL for a whole benchmark run: the server at DATABASE_URL when set (each benchmark gets
 * fresh databases on it and drops them), else a throwaway embedded server in a temporary directory.
 */
export async function startBenchServer(): Promise<BenchServer> {
  const { origin, adminUrl, stop: stopServer } = await openPgServer('bench');
  const version = await onAdmin(
    adminUrl,
    async (c) => (await c.query('SHOW server_version')).rows[0].server_version,
  );
  const created = new Set<string>();
  const dropDatabase = async (name: string) => {
    created.delete(name);
    await onAdmin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  };

  return {
    origin,
    version: String(version),
    async createDatabase(prefix, options = {}) {
      const name = `bench_${prefix}_${randomBytes(4).toString('hex')}`;
      await onAdmin(adminUrl, (c) => c.query(`CREATE DATABASE ${name}`));
      created.add(name);
      const url = withDatabase(adminUrl, name);
      if (options.migrate) await migrate(url);
      return { url, drop: () => dropDatabase(name) };
    },
    async checkpoint() {
      // Needs superuser (or pg_checkpoint) rights: on a shared server without them, measure without it.
      await onAdmin(adminUrl, (c) => c.query('CHECKPOINT')).catch(() => {});
    },
    async stop() {
      try {
        for (const name of [...created]) await dropDatabase(name).catch(() => {});
      } finally {
        await stopServer();
      }
    },
  };
}
