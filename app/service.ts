import type { Logger } from 'pino';
import type { AuthenticatorDeps } from '../services/accounts/authenticator.ts';
import type { Authenticator } from '../src/auth/scopes.ts';
import type { Config } from '../src/config.ts';
import { type EmbeddedDatabase, startEmbeddedPostgres } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { createPool } from '../src/db/pool.ts';
import type { ServiceDeps } from '../src/deps.ts';
import { instrumentEventStore } from '../src/event-store/instrumented.ts';
import { openEventStore } from '../src/event-store/open.ts';
import type { EventStore } from '../src/event-store/port.ts';
import type { Composition } from '../src/feature.ts';
import { buildApp } from '../src/http/app.ts';
import type { ZodApp } from '../src/http/routes.ts';
import { Projections } from '../src/projection/projections.ts';
import { wakeOnCommit } from '../src/work/batch.ts';
import { Workers } from '../src/work/workers.ts';
import { makeServiceParts } from './parts.ts';

export interface Service {
  app: ZodApp;
  deps: ServiceDeps;
  close(): Promise<void>;
}

export interface ServiceSetup {
  /** The features' registry, read models and routes (app/modules.ts). */
  composition: Composition;
  authenticator?: (deps: AuthenticatorDeps) => Authenticator;
}

/** The database: DATABASE_URL, or an embedded PostgreSQL under DATA_DIR (reused across starts). */
export async function openDatabase(
  config: Config,
  logger: Logger,
): Promise<{ url: string; embedded?: EmbeddedDatabase }> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL };
  const embedded = await startEmbeddedPostgres(config.DATA_DIR, {
    log: (line) => logger.debug({ postgres: line.trim() }, 'embedded postgres'),
  });
  logger.info({ dataDir: config.DATA_DIR }, 'embedded PostgreSQL started');
  return { url: embedded.url, embedded };
}

/**
 * Wires the whole service: database and migrations, event store, projections and the HTTP app.
 * `close` undoes it in reverse order (the HTTP server first, the embedded database last).
 */
export async function startService(config: Config, logger: Logger, setup: ServiceSetup): Promise<Service> {
  const database = await openDatabase(config, logger);
  const cleanups: (() => Promise<void>)[] = [async () => database.embedded?.stop()];
  try {
    await migrate(database.url);
    const limits = {
      connectTimeoutMs: config.DB_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    };
    const pool = createPool(database.url, limits);
    cleanups.unshift(() => pool.end());
    // Projections and the work queue on connections of their own: requests cannot starve them.
    const background = createPool(database.url, { ...limits, max: config.DB_BACKGROUND_POOL_SIZE });
    cleanups.unshift(() => background.end());
    // Counted by type for /metrics (src/event-store/instrumented.ts).
    const store: EventStore = instrumentEventStore(
      await openEventStore(config, pool, setup.composition.registry),
    );
    cleanups.unshift(() => store.close());
    const clock = () => new Date();
    const work = new Workers(background, { clock, logger });
    const projections = new Projections(store, background, setup.composition.projections, {
      onError: (error, context) => logger.error({ err: error, projection: context }, 'projection error'),
      onCommitted: wakeOnCommit(setup.composition.projections, () => work),
    });
    await projections.start();
    cleanups.unshift(() => projections.stop());
    const parts = makeServiceParts({ config, store, pool });
    const deps: ServiceDeps = {
      config,
      store,
      pool,
      projections,
      logger,
      clock,
      authenticate: setup.authenticator?.({ pool, parts }),
      work,
      backgroundPool: background,
      parts,
    };
    // Started after the projections (their reactors enqueue), stopped before them.
    work.start(setup.composition.workers.map((factory) => factory(deps)));
    cleanups.unshift(async () => work.stop());
    const app = await buildApp(deps, setup.composition.routes);
    cleanups.unshift(() => app.close());
    return {
      app,
      deps,
      close: async () => {
        for (const cleanup of cleanups)
          await cleanup().catch((error) => logger.error({ err: error }, 'shutdown step failed'));
      },
    };
  } catch (error) {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
    throw error;
  }
}
