import type { SecretRow } from '../../projections/secrets/secrets.ts';
import { SecretParams, SecretSchema } from '../../src/domain/secrets/schemas.ts';
import { secretNotFound } from '../../src/domain/secrets/secret-state.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { SECRETS_WITH_KEYS, secretFromRow } from './list-secrets.ts';

/** GET /api/secrets/{name}: one secret, value masked; another organization's name is simply unknown. */
export const getSecretRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/secrets/:name',
    {
      config: { access: 'secrets:read', noStore: true },
      schema: {
        operationId: 'getSecret',
        tags: ['secrets'],
        summary: 'Get a workspace secret (value masked)',
        params: SecretParams,
        response: { 200: SecretSchema },
      },
    },
    async (request) => {
      const { name } = request.params;
      const { rows } = await deps.pool.query<SecretRow>(
        `${SECRETS_WITH_KEYS} WHERE s.organization_id = $1 AND s.name = $2`,
        [principalOf(request).organizationId, name],
      );
      if (!rows[0]) throw secretNotFound(name);
      return secretFromRow(rows[0]);
    },
  );
};
