import {
  keyListing,
  keyListingSchema,
  keyNotFound,
  keyParams,
  readKey,
} from '../../services/accounts/views.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/**
 * GET /api/keys/{keyId}: one key of the caller's organization, as the listing shows it (never a
 * secret). It is what the `Location` of a created key names. Another organization's key is 404, as
 * DELETE answers it.
 */
export const getApiKeyRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/keys/:keyId',
    {
      config: { access: 'keys:read' },
      schema: {
        operationId: 'getApiKey',
        tags: ['keys'],
        summary: 'One API key of the organization',
        params: keyParams,
        response: { 200: keyListingSchema },
      },
    },
    async (request) => {
      const row = await readKey(deps.pool, request.params.keyId);
      if (!row || row.organization_id !== principalOf(request).organizationId)
        throw keyNotFound(request.params.keyId);
      return keyListing(row);
    },
  );
};
