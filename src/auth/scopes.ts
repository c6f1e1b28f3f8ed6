import type { OperatorSession } from './operators.ts';

/** The scopes of contract section 5.2, plus key management. A bootstrap key holds all of them. */
export const SCOPES = [
  'tables:read',
  'tables:write',
  'columns:write',
  'columns:run',
  'jobs:read',
  'sequences:read',
  'sequences:write',
  'sequences:run',
  'tasks:read',
  'tasks:write',
  'webhooks:read',
  'webhooks:write',
  'linkedin:read',
  'search:run',
  'secrets:read',
  'secrets:write',
  'prompts:read',
  'prompts:write',
  'leads:read',
  'leads:write',
  'keys:read',
  'keys:write',
] as const;

export type Scope = (typeof SCOPES)[number];

/**
 * What a route requires: a scope, `authenticated` (any valid key, e.g. GET /api/me), `public`, or
 * `operator` (a signed-in session of the operator console, /admin: never an API key, and a session
 * opens no other route). Every route declares one in its config; routes declaring nothing are refused
 * at registration.
 */
export type RouteAccess = Scope | 'authenticated' | 'public' | 'operator';

export interface Principal {
  keyId: string;
  organizationId: string;
  userId: string;
  scopes: ReadonlySet<Scope>;
}

/** Resolves the raw key of a request to its principal, or undefined when it is not a valid, live key. */
export type Authenticator = (rawKey: string) => Promise<Principal | undefined>;

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    principal?: Principal;
    /** The signed-in operator of an `operator` route (src/auth/operators.ts). */
    operator?: OperatorSession;
  }
}
