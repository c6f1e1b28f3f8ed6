import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';

export interface BenchDatabase {
  url: string;
  drop(): Promise<void>;
}

export interface BenchServer {
  /** Where the server came from, for the report: `embedded` or `DATABASE_URL`. */
  origin: 'embedded' | 'DATABASE_URL';
  version: string;
  /** A new, empty database (migrated when asked), dropped again by `drop` or by `stop`. */
  createDatabase(prefix: string, options?: { migrate?: boolean }): Promise<BenchDatabase>;
  /** Flushes dirty pages so that a checkpoint started by one measurement does not land in the next. */
  checkpoint(): Promise<void>;
  stop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function onAdmin<T>(adminUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(adminUrl);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * One PostgreSQL for a whole benchmark run: the server at DATABASE_URL when set (each benchmark gets
 * fresh databases on it and drops them), else a throwaway embedded server in a temporary directory.
 */
export async function startBenchServer(): Promise<BenchServer> {
  let adminUrl: string;
  let stopServer = async () => {};
  const origin = process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded';
  if (process.env.DATABASE_URL) {
    adminUrl = process.env.DATABASE_URL;
  } else {
    const dir = await mkdtemp(join(tmpdir(), 'stk-bench-pg-'));
    const server = await startEmbeddedPostgres(dir);
    adminUrl = server.url;
    stopServer = async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    };
  }
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
