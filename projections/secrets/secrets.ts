import type { SecretEvent } from '../../src/domain/secrets/events.ts';
import type { Projection } from '../../src/projection/types.ts';

/** Logical name of the read model; queries import it from here. */
export const SECRETS = 'workspace_secrets';

export interface SecretRow {
  name: string;
  version: number;
  created_at: Date;
  updated_at: Date;
  /** Joined from secret_data_keys: the current version's mask and last use. */
  masked_value: string | null;
  last_used_at: Date | null;
}

/**
 * One row per live secret: its name, version and current data key, never its value nor its mask
 * (those are in secret_data_keys, which a rebuild of this read model does not touch, and which a
 * query joins on key_id). Written by hand for now; a one-row-per-stream helper is on its way.
 */
export const secretsProjection: Projection<SecretEvent> = {
  name: 'secrets',
  version: 1,
  handles: ['SecretValueSet', 'SecretDeleted'],
  tables: {
    [SECRETS]: (t) => [
      `CREATE TABLE ${t} (
        organization_id text NOT NULL,
        name text COLLATE "C" NOT NULL,
        version integer NOT NULL,
        key_id text NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        revision bigint NOT NULL,
        PRIMARY KEY (organization_id, name)
      )`,
    ],
  },
  async apply(events, { tx, table }) {
    const t = table(SECRETS);
    for (const event of events) {
      const { organizationId, name } = event.data;
      if (event.type === 'SecretValueSet') {
        const { version, keyId, at } = event.data;
        // The revision guard makes a re-applied event a no-op; version 1 is a new secret (again).
        await tx.query(
          `INSERT INTO ${t} (organization_id, name, version, key_id, created_at, updated_at, revision)
           VALUES ($1, $2, $3, $4, $5, $5, $6)
           ON CONFLICT (organization_id, name) DO UPDATE SET
             version = EXCLUDED.version, key_id = EXCLUDED.key_id, updated_at = EXCLUDED.updated_at,
             revision = EXCLUDED.revision,
             created_at = CASE WHEN EXCLUDED.version = 1 THEN EXCLUDED.created_at ELSE ${t}.created_at END
           WHERE ${t}.revision < EXCLUDED.revision`,
          [organizationId, name, version, keyId, at, String(event.revision)],
        );
      } else if (event.type === 'SecretDeleted') {
        await tx.query(`DELETE FROM ${t} WHERE organization_id = $1 AND name = $2 AND revision < $3`, [
          organizationId,
          name,
          String(event.revision),
        ]);
      }
    }
  },
};
