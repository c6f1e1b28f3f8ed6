import {
  type MemberRow as Row,
  readMember,
  SELECT_MEMBERS as SELECT,
  UserParams,
  userDataSchema,
  userView,
} from '../../services/accounts/members.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { decodeCursor, isTimestamp, PageQuery, pageFrom, pageOf } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';

/** GET /api/users: the organization's users (its sign-up and its members), oldest first. */
export const listUsersRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/users',
    {
      config: { access: 'keys:read' },
      schema: {
        operationId: 'listUsers',
        tags: ['keys'],
        summary: 'List the users of the organization',
        querystring: PageQuery,
        response: { 200: pageOf(userDataSchema) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const [at, id] = cursor ? decodeCursor(cursor, 2, ([t]) => isTimestamp(t!)) : [null, ''];
      const { rows } = await deps.pool.query<Row>(
        `${SELECT} WHERE organization_id = $1
           AND ($2::timestamptz IS NULL OR (created_at, user_id) > ($2::timestamptz, $3))
         ORDER BY created_at, user_id LIMIT $4`,
        [principalOf(request).organizationId, at, id, limit + 1],
      );
      return pageFrom(rows, limit, userView, (row) => [row.created_at_exact, row.user_id]);
    },
  );
};

/** GET /api/users/{userId}: one user of the organization (another's is answered as none). */
export const getUserRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/users/:userId',
    {
      config: { access: 'keys:read' },
      schema: {
        operationId: 'getUser',
        tags: ['keys'],
        summary: 'Get a user of the organization',
        params: UserParams,
        response: { 200: userDataSchema },
      },
    },
    async (request) => {
      const { userId } = request.params;
      const user = await readMember(deps.pool, principalOf(request).organizationId, userId);
      if (!user) throw new AppError('not_found', `No user ${userId} in this organization.`);
      return user;
    },
  );
};
