import { z } from 'zod';
import { keyListing, keyListingSchema, readOrganizationKeys } from '../../services/accounts/views.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, isTimestamp, pageFrom, pageQuery } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';

const Query = pageQuery({ max: 100, default: 100 });

/** GET /api/keys: the keys of the caller's organization, revoked ones included, a page at a time. */
export const listApiKeysRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/keys',
    {
      config: { access: 'keys:read' },
      schema: {
        operationId: 'listApiKeys',
        tags: ['keys'],
        summary: "List the organization's API keys, oldest first",
        querystring: Query,
        response: { 200: z.object({ keys: z.array(keyListingSchema), nextCursor: z.string().nullable() }) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const after = cursor ? decodeCursor(cursor, 2, ([at]) => isTimestamp(at!)) : undefined;
      const rows = await readOrganizationKeys(deps.pool, principalOf(request).organizationId, {
        limit,
        after,
      });
      const page = pageFrom(rows, limit, keyListing, (last) => [last.created_at_exact, last.key_id]);
      return { keys: page.data, nextCursor: page.nextCursor };
    },
  );
};
