import { SECRETS, type SecretRow } from '../../projections/secrets/secrets.ts';
import { DATA_KEYS } from '../../services/secrets/data-keys.ts';
import { SECRET_NAME, SecretSchema, type SecretView } from '../../src/domain/secrets/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, PageQuery, pageFrom, pageOf } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/** A version whose key row is missing (a crash between the two writes) shows the bullets alone. */
const NO_MASK = '•'.repeat(8);

/** The secrets' rows with their current key's mask and last use; callers add WHERE and ORDER. */
export const SECRETS_WITH_KEYS = `SELECT s.name, s.version, s.created_at, s.updated_at, k.masked_value, k.last_used_at
  FROM ${SECRETS} s LEFT JOIN ${DATA_KEYS} k ON k.key_id = s.key_id`;

export const secretFromRow = (row: SecretRow): SecretView => ({
  name: row.name,
  version: row.version,
  maskedValue: row.masked_value ?? NO_MASK,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
  lastUsedAt: row.last_used_at?.toISOString() ?? null,
});

/** GET /api/secrets: the organization's secrets by name, a page at a time, values masked. */
export const listSecretsRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/secrets',
    {
      config: { access: 'secrets:read', noStore: true },
      schema: {
        operationId: 'listSecrets',
        tags: ['secrets'],
        summary: 'List the workspace secrets (values masked)',
        querystring: PageQuery,
        response: { 200: pageOf(SecretSchema) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const [after] = cursor ? decodeCursor(cursor, 1, ([name]) => SECRET_NAME.test(name!)) : [null];
      const { rows } = await deps.pool.query<SecretRow>(
        `${SECRETS_WITH_KEYS}
         WHERE s.organization_id = $1 AND ($2::text IS NULL OR s.name > $2)
         ORDER BY s.name LIMIT $3`,
        [principalOf(request).organizationId, after, limit + 1],
      );
      return pageFrom(rows, limit, secretFromRow, (row) => [row.name]);
    },
  );
};
