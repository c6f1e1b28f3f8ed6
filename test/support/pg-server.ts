import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/db/embedded.ts';

/** A PostgreSQL server for the tests or the benchmarks, reached through its maintenance database. */
export interface PgServer {
  /** Where it came from: the server at DATABASE_URL, or one started here. */
  origin: 'embedded' | 'DATABASE_URL';
  adminUrl: string;
  /** Stops a server started here (and removes its directory); leaves one at DATABASE_URL running. */
  stop(): Promise<void>;
}

/**
 * The server at DATABASE_URL when set, else a throwaway embedded server in a temporary directory
 * named after `purpose`. Shared by test/support/postgres.ts and bench/lib/postgres.ts.
 */
export async function openPgServer(purpose: string, log?: (line: string) => void): Promise<PgServer> {
  if (process.env.DATABASE_URL)
    return { origin: 'DATABASE_URL', adminUrl: process.env.DATABASE_URL, stop: async () => {} };
  const dir = await mkdtemp(join(tmpdir(), `stk-${purpose}-pg-`));
  const server = await startEmbeddedPostgres(dir, { log });
  return {
    origin: 'embedded',
    adminUrl: server.url,
    stop: async () => {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The URL of another database on the same server. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Runs `fn` on a short-lived connection (CREATE/DROP DATABASE cannot run inside a pool's transaction). */
export async function onAdmin<T>(adminUrl: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(adminUrl);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}
