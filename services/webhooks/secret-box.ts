import type { Pool } from '../../src/db/pool.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import type { SealedSecret } from '../../src/domain/webhooks/events.ts';
import { DATA_KEYS } from '../secrets/data-keys.ts';

/**
 * A subscription's signing secret sealed with the workspace secrets' envelope encryption: its data
 * key sits in secret_data_keys under this name (no workspace secret name has a colon), its
 * ciphertext in the subscription's events.
 */
const keyName = (subscriptionId: string) => `webhook:${subscriptionId}`;

export async function sealSigningSecret(
  deps: Pick<ServiceDeps, 'parts'>,
  organizationId: string,
  subscriptionId: string,
  secret: string,
): Promise<SealedSecret> {
  const { keyId, ciphertext } = await deps.parts.vault.seal(organizationId, keyName(subscriptionId), secret);
  return { keyId, ciphertext };
}

/** Decrypted secrets by data key: a worker signs thousands of messages with one. */
const opened = new Map<string, string>();
const CACHE_MAX = 1000;

export async function openSigningSecret(
  deps: Pick<ServiceDeps, 'parts'>,
  organizationId: string,
  subscriptionId: string,
  sealed: SealedSecret,
): Promise<string | undefined> {
  const cached = opened.get(sealed.keyId);
  if (cached !== undefined) return cached;
  const value = await deps.parts.vault.openSealed(organizationId, keyName(subscriptionId), sealed);
  if (value === undefined) return undefined;
  if (opened.size >= CACHE_MAX) opened.delete(opened.keys().next().value!);
  opened.set(sealed.keyId, value);
  return value;
}

/** A replaced secret's data key, once the secret no longer signs (24 hours after a rotation). */
export async function destroySigningKey(
  pool: Pool,
  organizationId: string,
  subscriptionId: string,
  keyId: string,
): Promise<void> {
  await pool.query(
    `DELETE FROM ${DATA_KEYS} WHERE key_id = $1 AND organization_id = $2 AND secret_name = $3`,
    [keyId, organizationId, keyName(subscriptionId)],
  );
  opened.delete(keyId);
}

/** A deleted subscription's data keys go: its sealed secrets in the log become noise. */
export async function destroySigningKeys(pool: Pool, organizationId: string, subscriptionId: string) {
  await pool.query(`DELETE FROM ${DATA_KEYS} WHERE organization_id = $1 AND secret_name = $2`, [
    organizationId,
    keyName(subscriptionId),
  ]);
  // Which cached keys were this subscription's is not kept: dropping them all costs a few reads.
  opened.clear();
}
