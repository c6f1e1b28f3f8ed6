import { API_KEYS, type ApiKeyRow } from '../../projections/api-keys.ts';
import type { Pool } from '../db/pool.ts';
import { parseKey, secretMatches } from './keys.ts';
import { LastUsedRecorder } from './last-used.ts';
import type { Authenticator, Principal, Scope } from './scopes.ts';

type KeyRecord = Pick<
  ApiKeyRow,
  'key_id' | 'organization_id' | 'user_id' | 'scopes' | 'secret_hash' | 'revoked'
>;

/** Per database (so per app, and per test): the last-used recorder shared by the authenticator. */
export interface AuthState {
  lastUsed: LastUsedRecorder;
}

const states = new WeakMap<Pool, AuthState>();

export function authStateFor(pool: Pool): AuthState {
  let state = states.get(pool);
  if (!state) {
    state = { lastUsed: new LastUsedRecorder(pool) };
    states.set(pool, state);
  }
  return state;
}

function principalOf(row: KeyRecord): Principal {
  return {
    keyId: row.key_id,
    organizationId: row.organization_id,
    userId: row.user_id,
    scopes: new Set(row.scopes as Scope[]),
  };
}

/**
 * Raw key -> principal over the api_keys read model. Malformed keys are refused without a query; a
 * key is accepted only when it exists, is not revoked and its secret hashes to the stored hash
 * (compared in constant time). Every request reads the row, so a revocation holds on the next request.
 */
export function createAuthenticator(pool: Pool): Authenticator {
  const { lastUsed } = authStateFor(pool);
  return async (raw) => {
    const parsed = parseKey(raw);
    if (!parsed) return undefined;
    const { rows } = await pool.query<KeyRecord>(
      `SELECT key_id, organization_id, user_id, scopes, secret_hash, revoked FROM ${API_KEYS} WHERE key_id = $1`,
      [parsed.keyId],
    );
    const row = rows[0];
    if (!row || row.revoked || !secretMatches(parsed.secret, row.secret_hash)) return undefined;
    lastUsed.record(row.key_id);
    return principalOf(row);
  };
}
