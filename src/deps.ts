import type { Logger } from 'pino';
import type { Authenticator } from './auth/scopes.ts';
import type { Config } from './config.ts';
import type { Pool } from './db/pool.ts';
import type { EventStore } from './event-store/port.ts';
import type { Projections } from './projection/projections.ts';
import type { Workers } from './work/workers.ts';

/**
 * What the service is made of, built once at start-up (app/service.ts): routes, workers and process
 * managers take it, or the narrower part of it they use. Tests build it with their own pieces.
 */
export interface ServiceDeps {
  config: Config;
  store: EventStore;
  pool: Pool;
  projections: Projections;
  logger: Logger;
  clock: () => Date;
  authenticate?: Authenticator;
  /** The background workers (src/work/): absent in tests that run none. */
  work?: Workers;
  /** The pool of projections and workers (DB_BACKGROUND_POOL_SIZE), when it is not `pool`: for /metrics. */
  backgroundPool?: Pool;
}
