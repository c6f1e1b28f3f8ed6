import { API_KEYS, type ApiKeyRow } from '../../projections/accounts/api-keys.ts';
import { VerifiedKeyCache } from '../../src/auth/key-cache.ts';
import { parseKey, secretMatches } from '../../src/auth/keys.ts';
import { LastUsedRecorder } from '../../src/auth/last-used.ts';
import type { Authenticator, Principal, Scope } from '../../src/auth/scopes.ts';
import type { Pool } from '../../src/db/pool.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { RevocationListener } from './revocation-listener.ts';

type KeyRecord = Pick<
  ApiKeyRow,
  'key_id' | 'organization_id' | 'user_id' | 'scopes' | 'secret_hash' | 'revoked'
>;

/**
 * Per service (and per test app): the cache of verified keys, the last-used recorder and the
 * revocation listener. The revoke command reaches the cache through the service's parts.
 */
export class AuthState {
  readonly cache = new VerifiedKeyCache();
  readonly lastUsed: LastUsedRecorder;
  listener?: RevocationListener;

  constructor(pool: Pool) {
    this.lastUsed = new LastUsedRecorder(pool);
  }
}

declare module '../../src/deps.ts' {
  interface ServiceParts {
    auth: AuthState;
  }
}

/** What an authenticator is made from: the service's pool and its auth state. */
export type AuthenticatorDeps = Pick<ServiceDeps, 'pool' | 'parts'>;

function principalOf(row: KeyRecord): Principal {
  return {
    keyId: row.key_id,
    organizationId: row.organization_id,
    userId: row.user_id,
    scopes: new Set(row.scopes as Scope[]),
  };
}

export interface AuthenticatorOptions {
  /** Keep verified keys in memory (default). Off: every request reads the api_keys row. */
  cache?: boolean;
}

/**
 * Raw key -> principal over the api_keys read model. Malformed keys are refused without a query; a
 * key is accepted only when it exists, is not revoked and its secret hashes to the stored hash
 * (compared in constant time).
 *
 * Revocation holds from the very next request: the revoke command answers only after the read model
 * shows it and after dropping the key from this process's cache, and other processes drop it when the
 * projection's NOTIFY reaches them (key-cache.ts and revocation-listener.ts give the reasoning).
 */
export function createAuthenticator(
  deps: AuthenticatorDeps,
  options: AuthenticatorOptions = {},
): Authenticator {
  const { pool } = deps;
  const state = deps.parts.auth;
  const useCache = options.cache ?? true;
  if (useCache) state.listener ??= new RevocationListener(pool, state.cache);
  const { cache, lastUsed } = state;
  return async (raw) => {
    const parsed = parseKey(raw);
    if (!parsed) return undefined;
    const cached = useCache ? cache.get(parsed.keyId) : undefined;
    if (cached) {
      if (!secretMatches(parsed.secret, cached.secretHash)) return undefined;
      lastUsed.record(parsed.keyId);
      return cached.principal;
    }
    const generation = cache.generation;
    const { rows } = await pool.query<KeyRecord>(
      `SELECT key_id, organization_id, user_id, scopes, secret_hash, revoked FROM ${API_KEYS} WHERE key_id = $1`,
      [parsed.keyId],
    );
    const row = rows[0];
    if (!row || row.revoked) return undefined;
    const principal = principalOf(row);
    if (useCache) cache.set(row.key_id, row.secret_hash, principal, generation);
    if (!secretMatches(parsed.secret, row.secret_hash)) return undefined;
    lastUsed.record(row.key_id);
    return principal;
  };
}
