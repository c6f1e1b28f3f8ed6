import { inTransaction, type Pool, type PoolClient } from '../../src/db/pool.ts';
import { DATA_KEYS, type DataKeyRow, unwrapDataKey, WRAP_LOCK, wrapDataKey } from './data-keys.ts';
import {
  ensureKeyFile,
  generateMasterKey,
  type Keyring,
  type MasterKeySource,
  replaceKeyFile,
} from './master-key.ts';

const BATCH = 500;

export interface RotationReport {
  /** Where the master key comes from, and its id now. */
  source: 'environment' | 'file';
  masterKeyId: string;
  rewrapped: number;
  /** Data keys under master keys this process was not given, by master key id: still unreadable. */
  unknown: Record<string, number>;
}

/**
 * Re-wraps up to BATCH data keys not under the current master key. Each row changes only if it is
 * still wrapped as read, so a secret written or deleted meanwhile is left as its writer left it.
 */
async function rewrapBatch(db: Pool | PoolClient, ring: Keyring): Promise<number> {
  const known = ring.all.filter((k) => k.id !== ring.current.id);
  const { rows } = await db.query<DataKeyRow>(
    `SELECT key_id, master_key_id, wrapped_key FROM ${DATA_KEYS}
     WHERE master_key_id = ANY($1::text[]) ORDER BY key_id LIMIT ${BATCH}`,
    [known.map((k) => k.id)],
  );
  let done = 0;
  for (const row of rows) {
    const dataKey = unwrapDataKey(known.find((k) => k.id === row.master_key_id)!, row);
    const { rowCount } = await db.query(
      `UPDATE ${DATA_KEYS} SET master_key_id = $2, wrapped_key = $3
       WHERE key_id = $1 AND master_key_id = $4 AND wrapped_key = $5`,
      [
        row.key_id,
        ring.current.id,
        wrapDataKey(ring.current, row.key_id, dataKey),
        row.master_key_id,
        row.wrapped_key,
      ],
    );
    dataKey.fill(0);
    done += rowCount ?? 0;
  }
  return done;
}

/**
 * `stk admin secrets rotate-master-key`: every data key wrapped under the current master key, while
 * the service runs (no value is re-encrypted: only the data keys are re-wrapped).
 *
 * From the key file: a new key is generated and written first in the file, the old ones after it, so
 * every process can read both while the keys move (a process re-reads the file before each wrap and
 * whenever a data key names a master key it does not have). The last pass holds the wrap lock
 * exclusively: no wrap under the old key can land after it. The file then keeps the new key only.
 *
 * From the environment: SECRETS_MASTER_KEY is the new key and SECRETS_PREVIOUS_MASTER_KEYS the old
 * ones (the service processes are rolled onto the same settings first; the docs give the steps).
 */
export async function rotateMasterKey(pool: Pool, source: MasterKeySource): Promise<RotationReport> {
  if (source.kind === 'file') {
    const keys = await ensureKeyFile(source.path);
    await replaceKeyFile(source.path, [generateMasterKey(), ...keys]);
  }
  const ring = await source.reload();
  let rewrapped = 0;
  for (let moved = -1; moved !== 0; ) {
    moved = await rewrapBatch(pool, ring);
    rewrapped += moved;
  }
  await inTransaction(pool, async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [WRAP_LOCK]);
    for (let moved = -1; moved !== 0; ) {
      moved = await rewrapBatch(tx, ring);
      rewrapped += moved;
    }
  });
  // Only now, with every data key under the new key for good: a wrap that read the file before it
  // changed has landed before the pass above (it holds the lock shared from reading to commit), and
  // one that reads it after wraps under the new key, which comes first in the file.
  if (source.kind === 'file') await replaceKeyFile(source.path, [ring.current]);
  await source.reload();
  const { rows } = await pool.query<{ master_key_id: string; count: string }>(
    `SELECT master_key_id, count(*) AS count FROM ${DATA_KEYS} WHERE master_key_id <> $1 GROUP BY master_key_id`,
    [ring.current.id],
  );
  return {
    source: source.kind,
    masterKeyId: ring.current.id,
    rewrapped,
    unknown: Object.fromEntries(rows.map((r) => [r.master_key_id, Number(r.count)])),
  };
}
