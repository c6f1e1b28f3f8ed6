import { z } from 'zod';
import { API_KEYS, type ApiKeyRow } from '../../projections/accounts/api-keys.ts';
import type { OrganizationRow } from '../../projections/accounts/organizations.ts';
import type { UserRow } from '../../projections/accounts/users.ts';
import { API_KEY_USAGE } from '../../src/auth/last-used.ts';
import { SCOPES } from '../../src/auth/scopes.ts';
import type { Pool } from '../../src/db/pool.ts';
import { AppError } from '../../src/errors.ts';

/**
 * The shapes the accounts API answers with (bootstrap, key issue, /api/me, key listing). Queries build
 * them from the read models' rows; commands from the events they recorded (log-views.ts), as rows of
 * the same fields, so that both agree with what a later GET shows.
 */
/** Where one key is read (GET), and what the calls that create one name in `Location`. */
export const keyPath = (keyId: string) => `/api/keys/${encodeURIComponent(keyId)}`;

/** The path parameters of `/api/keys/{keyId}`. */
export const keyParams = z.object({ keyId: z.string().min(1).max(64) });

/** Another organization's key is answered like a key that does not exist: ids are not probed. */
export const keyNotFound = (keyId: string) =>
  new AppError('not_found', `No API key ${keyId} in this organization.`);

export const keyMetadataSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  createdAt: z.string(),
});

export const keyListingSchema = keyMetadataSchema.extend({
  userId: z.string(),
  lastUsedAt: z.string().nullable(),
  revoked: z.boolean(),
  revokedAt: z.string().nullable(),
});

export const userDataSchema = z.object({
  id: z.string(),
  email: z.string(),
  firstName: z.string().nullable(),
  lastName: z.string().nullable(),
  createdAt: z.string(),
});

export const organizationSchema = z.object({ id: z.string(), name: z.string(), balance: z.number() });

export const keyMetadata = (
  row: Pick<ApiKeyRow, 'key_id' | 'name' | 'prefix' | 'scopes' | 'created_at'>,
): z.infer<typeof keyMetadataSchema> => ({
  id: row.key_id,
  name: row.name,
  prefix: row.prefix,
  scopes: row.scopes,
  createdAt: row.created_at.toISOString(),
});

export const keyListing = (row: ApiKeyRow): z.infer<typeof keyListingSchema> => ({
  ...keyMetadata(row),
  userId: row.user_id,
  lastUsedAt: row.last_used_at?.toISOString() ?? null,
  revoked: row.revoked,
  revokedAt: row.revoked_at?.toISOString() ?? null,
});

export const userData = (row: Omit<UserRow, 'organization_id'>): z.infer<typeof userDataSchema> => ({
  id: row.user_id,
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  createdAt: row.created_at.toISOString(),
});

export const organizationData = (
  row: Omit<OrganizationRow, 'created_at'>,
): z.infer<typeof organizationSchema> => ({
  id: row.organization_id,
  name: row.name,
  balance: row.credit_balance,
});

/**
 * A key as answers show it: every column except the secret's hash, which no answer ever carries, and
 * when the key was last used. `KEY_FIELDS` selects from `KEYS_WITH_USAGE` (aliases `k` and `usage`).
 */
export const KEY_FIELDS = `k.key_id, k.organization_id, k.user_id, k.name, k.prefix, k.scopes, k.revoked,
  k.revoked_at, k.created_at, usage.last_used_at`;
export const KEYS_WITH_USAGE = `${API_KEYS} k LEFT JOIN ${API_KEY_USAGE} usage ON usage.key_id = k.key_id`;

export async function readKey(pool: Pool, keyId: string): Promise<ApiKeyRow | undefined> {
  const { rows } = await pool.query<ApiKeyRow>(
    `SELECT ${KEY_FIELDS} FROM ${KEYS_WITH_USAGE} WHERE k.key_id = $1`,
    [keyId],
  );
  return rows[0];
}

/**
 * The organization's keys, oldest first: all of them, or a page after the (created_at, key_id) of
 * `after`. The
 * creation time travels as PostgreSQL's own text of it: a Date would drop its microseconds, and the
 * next page would show the last key again.
 */
export async function readOrganizationKeys(
  pool: Pool,
  organizationId: string,
  page: { limit?: number; after?: readonly string[] } = {},
): Promise<(ApiKeyRow & { created_at_exact: string })[]> {
  const [createdAt, keyId] = page.after ?? [];
  const { rows } = await pool.query<ApiKeyRow & { created_at_exact: string }>(
    `SELECT ${KEY_FIELDS}, k.created_at::text AS created_at_exact FROM ${KEYS_WITH_USAGE}
     WHERE k.organization_id = $1 AND ($2::timestamptz IS NULL OR (k.created_at, k.key_id) > ($2::timestamptz, $3))
     ORDER BY k.created_at, k.key_id LIMIT $4`,
    // LIMIT NULL is no limit; a page reads one more row to know whether another page follows.
    [organizationId, createdAt ?? null, keyId ?? '', page.limit === undefined ? null : page.limit + 1],
  );
  return rows;
}
