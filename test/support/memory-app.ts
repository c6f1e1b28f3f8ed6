import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { suite } from 'uvu';
import { makeServiceParts } from '../../app/parts.ts';
import { generateKey } from '../../src/auth/keys.ts';
import { type Principal, SCOPES, type Scope } from '../../src/auth/scopes.ts';
import { loadConfig } from '../../src/config.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { MemoryEventStore } from '../../src/event-store/memory.ts';
import type { Position } from '../../src/event-store/port.ts';
import { buildApp } from '../../src/http/app.ts';
import type { RouteModule, ZodApp } from '../../src/http/routes.ts';
import { createLogger } from '../../src/logger.ts';
import { Projections } from '../../src/projection/projections.ts';
import type { Projection } from '../../src/projection/types.ts';
import { checkAnswers } from './app.ts';
import { registryOf, scanningLog } from './secret-scan.ts';
import { testRegistry } from './test-streams.ts';

/**
 * The service's app over the in-memory event store and no database: for API specs of routes that
 * decide on streams and read no read model (conventions 17 and 21). Keys are made here, not by the
 * accounts feature (whose keys live in a read model). A route that reaches for the database gets a
 * refusal naming the query, so the spec fails loudly (a 500) rather than passing on a stub; such a
 * route's spec runs on PostgreSQL (startTestApp).
 */
export interface MemoryApp {
  app: ZodApp;
  deps: ServiceDeps;
  store: MemoryEventStore;
  /** A key of `organizationId` (a new one by default) holding `scopes` (all by default). */
  issueKey(options?: { organizationId?: string; scopes?: readonly Scope[] }): MemoryKey;
  close(): Promise<void>;
}

export interface MemoryKey {
  apiKey: string;
  keyId: string;
  organizationId: string;
  /** The key's user: a spec that needs them a member gives their user stream. */
  userId: string;
}

/**
 * Read-your-writes with no read model: a command's wait for its read models has nothing to wait for.
 * The runners' other answers are those of a service with no projections.
 */
class NoReadModels extends Projections {
  constructor(deps: Pick<ServiceDeps, 'store' | 'pool'>) {
    super(deps.store, deps.pool, []);
  }

  override async waitFor(_position: Position, _projections?: readonly Projection[]): Promise<void> {}
}

/** A pool that never connects: every query is refused, saying which and why. */
function noDatabase(): Pool {
  const refuse = (query: unknown) => {
    const text = typeof query === 'string' ? query : (query as { text?: string } | undefined)?.text;
    const error = new Error(
      `an in-memory API spec has no database, and the route asked for one (${String(text).trim().split('\n')[0]}): ` +
        'run this spec on PostgreSQL (startTestApp)',
    );
    console.error(error.message);
    return Promise.reject(error);
  };
  return Object.assign(new pg.Pool({ max: 1 }), { query: refuse, connect: () => refuse('connect') });
}

export async function startMemoryApp(options: {
  routes: readonly RouteModule[];
  clock?: () => Date;
  env?: Record<string, string>;
}): Promise<MemoryApp> {
  const config = loadConfig({ LOG_LEVEL: 'trace', TRUST_PROXY: 'true', ...options.env });
  // The secret scan keeps its secrets per store: this app's is its own.
  const secrets = registryOf(`memory:${randomUUID()}`);
  const logger = createLogger(config.LOG_LEVEL, scanningLog(secrets));
  const store = new MemoryEventStore(testRegistry);
  const pool = noDatabase();
  const principals = new Map<string, Principal>();
  const deps: ServiceDeps = {
    config,
    store,
    pool,
    projections: new NoReadModels({ store, pool }),
    logger,
    clock: options.clock ?? (() => new Date()),
    authenticate: async (raw) => principals.get(raw),
    parts: makeServiceParts({ config, store, pool }),
  };
  const app = await buildApp(deps, options.routes);
  checkAnswers(app, secrets);
  return {
    app,
    deps,
    store,
    issueKey({ organizationId = randomUUID(), scopes = SCOPES } = {}) {
      const key = generateKey();
      secrets.add(key.secret, 'API key secret');
      const userId = randomUUID();
      principals.set(key.apiKey, { keyId: key.keyId, organizationId, userId, scopes: new Set(scopes) });
      return { apiKey: key.apiKey, keyId: key.keyId, organizationId, userId };
    },
    close: async () => {
      await app.close();
      await store.close();
      await pool.end();
    },
  };
}

export interface MemoryAppContext {
  t: MemoryApp;
  /** An all-scopes key of one organization, its id, the organization and the key's user. */
  key: string;
  keyId: string;
  organizationId: string;
  userId: string;
}

/**
 * A suite of API specs over one in-memory app with `routes`, shared by its tests (each names streams
 * of its own), with an all-scopes key: what `tablesSuite` is on PostgreSQL, without a database.
 * `options.clock` fixes the time the app's deciders see, so a spec can name the `at` of its events.
 */
export function memoryAppSuite(
  name: string,
  routes: readonly RouteModule[],
  options: { clock?: () => Date; env?: Record<string, string> } = {},
) {
  const test = suite<MemoryAppContext>(name);
  test.before(async (ctx) => {
    ctx.t = await startMemoryApp({ routes, ...options });
    const { apiKey, keyId, organizationId, userId } = ctx.t.issueKey();
    Object.assign(ctx, { key: apiKey, keyId, organizationId, userId });
  });
  test.after(async (ctx) => {
    await ctx.t.close();
  });
  return test;
}
