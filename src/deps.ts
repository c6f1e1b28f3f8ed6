import type { Logger } from 'pino';
import type { Authenticator } from './auth/scopes.ts';
import type { Config } from './config.ts';
import type { Pool } from './db/pool.ts';
import type { EventStore } from './event-store/port.ts';
import type { Projections } from './projection/projections.ts';
import type { Workers } from './work/workers.ts';

/**
 * What the features add to the service, each made once when the service is built (app/parts.ts)
 * and dropped with it: the secrets vault, the search providers and their cache, the article writer,
 * the page cache, the webhook attempt log and delivery client, the authenticator's key state. A
 * feature declares its field beside what it adds (`declare module '<path>/src/deps.ts'`), so the
 * kernel names none of them, and a part a feature declares but app/parts.ts does not make is a type
 * error. Nothing is cached in module-level maps keyed by a pool or a store: two services in one
 * process (tests) each own their parts.
 */
// biome-ignore lint/suspicious/noEmptyInterface: every feature adds its part by module augmentation
export interface ServiceParts {}

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
  /** What the features add (see ServiceParts), made once per service. */
  parts: ServiceParts;
}
