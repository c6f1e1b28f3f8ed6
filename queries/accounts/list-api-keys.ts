import { z } from 'zod';
import { keyListing, keyListingSchema, readOrganizationKeys } from '../../src/domain/accounts/views.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/app.ts';

/** GET /api/keys: every key of the caller's organization, revoked ones included, never a secret. */
export const listApiKeysRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/keys',
    {
      config: { access: 'keys:read' },
      schema: {
        tags: ['keys'],
        summary: "List the organization's API keys",
        response: { 200: z.object({ keys: z.array(keyListingSchema) }) },
      },
    },
    async (request) => {
      const rows = await readOrganizationKeys(deps.pool, principalOf(request).organizationId);
      return { keys: rows.map(keyListing) };
    },
  );
};
