import { LastUsedRecorder } from '../../src/auth/last-used.ts';
import { inTransaction, type Pool, type PoolClient } from '../../src/db/pool.ts';
import { dataKeyContext, open, seal } from '../../src/domain/secrets/envelope.ts';
import type { MasterKey, MasterKeySource } from './master-key.ts';

/** The table of data keys (src/migrations/…_secret-data-keys.sql says why it is not a projection). */
export const DATA_KEYS = 'secret_data_keys';

/**
 * Held shared by every wrap and exclusively by the last pass of a master-key rotation: a data key
 * wrapped under the old key cannot land after that pass has looked (rotation.ts).
 */
export const WRAP_LOCK = 'secrets:master-key';

/** How long a key no event names yet may be a write still under way; older, it is a crash's leftover. */
const ORPHAN_AGE = '1 hour';

export interface DataKeyRow {
  key_id: string;
  master_key_id: string;
  wrapped_key: string;
}

export const wrapDataKey = (master: MasterKey, keyId: string, dataKey: Buffer) =>
  seal(master.key, dataKey, dataKeyContext(keyId));

export const unwrapDataKey = (master: MasterKey, row: DataKeyRow) =>
  open(master.key, row.wrapped_key, dataKeyContext(row.key_id));

export interface NewDataKey {
  keyId: string;
  organizationId: string;
  name: string;
  dataKey: Buffer;
  maskedValue: string;
}

/**
 * Stores a new data key wrapped under the current master key, read after taking the wrap lock: a
 * rotation that has just replaced the key file is seen here.
 */
export async function insertDataKey(pool: Pool, source: MasterKeySource, key: NewDataKey): Promise<void> {
  await inTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock_shared(hashtext($1))', [WRAP_LOCK]);
    const { current } = await source.reload();
    await tx.query(
      `INSERT INTO ${DATA_KEYS} (key_id, organization_id, secret_name, master_key_id, wrapped_key, masked_value)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        key.keyId,
        key.organizationId,
        key.name,
        current.id,
        wrapDataKey(current, key.keyId, key.dataKey),
        key.maskedValue,
      ],
    );
  });
}

export async function readDataKey(db: Pool | PoolClient, keyId: string): Promise<DataKeyRow | undefined> {
  const { rows } = await db.query<DataKeyRow>(
    `SELECT key_id, master_key_id, wrapped_key FROM ${DATA_KEYS} WHERE key_id = $1`,
    [keyId],
  );
  return rows[0];
}

/**
 * Destroys the data keys of a secret's replaced versions (`replaced`, as its stream names them) and
 * any key of it that no write finished with long ago; `current` stays. A key no event names yet may
 * belong to a write under way and is left alone until it is old.
 */
export async function destroyKeys(
  pool: Pool,
  secret: { organizationId: string; name: string },
  replaced: readonly string[],
  current: string | undefined,
): Promise<void> {
  await pool.query(
    `DELETE FROM ${DATA_KEYS}
     WHERE key_id = ANY($3::text[])
        OR (organization_id = $1 AND secret_name = $2 AND key_id IS DISTINCT FROM $4
            AND created_at < now() - interval '${ORPHAN_AGE}')`,
    [secret.organizationId, secret.name, replaced, current ?? null],
  );
}

/** When a secret's version was last resolved: at most once a minute per key, off the caller's path. */
export class SecretUseRecorder extends LastUsedRecorder {
  protected override readonly statement = `UPDATE ${DATA_KEYS} SET last_used_at = now() WHERE key_id = $1`;
}
