import { z } from 'zod';
import type { ApiKeyRow } from '../../projections/accounts/api-keys.ts';
import { ORGANIZATIONS, type OrganizationRow } from '../../projections/accounts/organizations.ts';
import { USERS, type UserRow } from '../../projections/accounts/users.ts';
import {
  KEY_FIELDS,
  KEYS_WITH_USAGE,
  keyListing,
  keyListingSchema,
  organizationData,
  organizationSchema,
  userData,
  userDataSchema,
} from '../../services/accounts/views.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export const meSchema = z.object({
  keyMetadata: keyListingSchema,
  userData: userDataSchema,
  organization: organizationSchema,
});

type MeRow = ApiKeyRow &
  Pick<UserRow, 'email' | 'first_name' | 'last_name'> & { user_created_at: Date } & Pick<
    OrganizationRow,
    'credit_balance'
  > & { organization_name: string };

/** One round trip: the key joined with its user and organization. */
const ME_SQL = `
  SELECT ${KEY_FIELDS}, u.email, u.first_name, u.last_name, u.created_at AS user_created_at,
         o.name AS organization_name, o.credit_balance
  FROM ${KEYS_WITH_USAGE}
  JOIN ${USERS} u ON u.user_id = k.user_id
  JOIN ${ORGANIZATIONS} o ON o.organization_id = k.organization_id
  WHERE k.key_id = $1`;

/** GET /api/me: the calling key, its user, and its organization with the credit balance. */
export const meRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/me',
    {
      config: { access: 'authenticated' },
      schema: {
        operationId: 'getMe',
        tags: ['keys'],
        summary: 'The calling key, its user and organization',
        response: { 200: meSchema },
      },
    },
    async (request) => {
      const { rows } = await deps.pool.query<MeRow>(ME_SQL, [principalOf(request).keyId]);
      const row = rows[0];
      if (!row) throw new AppError('not_found', 'The account of this key is gone.');
      return {
        keyMetadata: keyListing(row),
        userData: userData({ ...row, created_at: row.user_created_at }),
        organization: organizationData({ ...row, name: row.organization_name }),
      };
    },
  );
};
