import type { Scope } from '../../src/auth/scopes.ts';
import type { ApiKeyEvent } from '../../src/domain/accounts/events.ts';
import type { Projection } from '../../src/projection/types.ts';

/** Table names of this read model; queries and the authenticator import them from here. */
export const API_KEYS = 'api_keys';

/** Notified with the key id when a key is revoked (services/accounts/revocation-listener.ts listens). */
export const API_KEY_REVOKED_CHANNEL = 'api_key_revoked';

export interface ApiKeyRow {
  key_id: string;
  organization_id: string;
  user_id: string;
  name: string;
  prefix: string;
  scopes: Scope[];
  secret_hash: string;
  revoked: boolean;
  revoked_at: Date | null;
  created_at: Date;
  /** Joined from api_key_usage where a query shows it (this table's own column is no longer written). */
  last_used_at: Date | null;
}

/**
 * API keys as the authenticator reads them on every request: the secret's SHA-256 (never the secret),
 * scopes and revocation. When a key was last used is kept beside it, in api_key_usage
 * (src/auth/last-used.ts), so that a rebuild of this projection cannot lose it.
 */
export const apiKeysProjection: Projection<ApiKeyEvent> = {
  name: 'api_keys',
  version: 1,
  handles: ['ApiKeyIssued', 'ApiKeyRevoked'],
  tables: {
    [API_KEYS]: (t) => [
      `CREATE TABLE ${t} (
        key_id          text PRIMARY KEY,
        organization_id text NOT NULL,
        user_id         text NOT NULL,
        name            text NOT NULL,
        prefix          text NOT NULL,
        scopes          text[] NOT NULL,
        secret_hash     text NOT NULL,
        revoked         boolean NOT NULL DEFAULT false,
        revoked_at      timestamptz,
        created_at      timestamptz NOT NULL,
        -- No longer written (see api_key_usage); kept so that processes of the previous release,
        -- which still read it during a rolling deploy, keep working. To be dropped by a migration.
        last_used_at    timestamptz
      )`,
      `CREATE INDEX ${t}_organization_idx ON ${t} (organization_id, created_at)`,
    ],
  },
  async apply(events, { tx, table }) {
    const keys = table(API_KEYS);
    for (const event of events) {
      if (event.type === 'ApiKeyIssued') {
        const { data } = event;
        await tx.query(
          `INSERT INTO ${keys} (key_id, organization_id, user_id, name, prefix, scopes, secret_hash, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (key_id) DO NOTHING`,
          [
            data.keyId,
            data.organizationId,
            data.userId,
            data.name,
            data.prefix,
            data.scopes,
            data.secretHash,
            event.recordedAt,
          ],
        );
      } else if (event.type === 'ApiKeyRevoked') {
        const { data } = event;
        await tx.query(
          `UPDATE ${keys} SET revoked = true, revoked_at = COALESCE(revoked_at, $2) WHERE key_id = $1`,
          [data.keyId, event.recordedAt],
        );
        // Delivered when this transaction commits, i.e. exactly when the revocation becomes visible:
        // every process drops the key from its cache of verified keys.
        await tx.query('SELECT pg_notify($1, $2)', [API_KEY_REVOKED_CHANNEL, data.keyId]);
      }
    }
  },
};
