import { z } from 'zod';
import { usersProjection } from '../../projections/accounts/users.ts';
import { memberPath, newUserId, readMember, userDataSchema } from '../../services/accounts/members.ts';
import { handleCommand } from '../../src/command.ts';
import { emailReservationStream, userStream } from '../../src/domain/accounts/streams.ts';
import { AppError } from '../../src/errors.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

const Name = z.string().trim().min(1).max(100);
const AddMemberBody = z.strictObject({
  email: z.string().trim().toLowerCase().max(254).pipe(z.email()),
  first_name: Name.optional(),
  last_name: Name.optional(),
});

/** An address nobody holds is held for the member; one an account or another member holds is a 409. */
const holdEmail = emailReservationStream.decider(
  (command: { email: string; userId: string; organizationId: string }, state) => {
    if (state.status !== 'free')
      throw new AppError('email_taken', 'A user with this email address exists already.', {
        errors: [{ path: 'email', message: 'already a user' }],
      });
    return [{ type: 'EmailHeldByMember' as const, data: command }];
  },
);

const addMember = userStream.decider(
  (
    command: {
      userId: string;
      organizationId: string;
      email: string;
      firstName: string | null;
      lastName: string | null;
    },
    state,
  ) => {
    if (state.status !== 'none') throw new AppError('conflict', `User ${command.userId} exists already.`);
    return [{ type: 'MemberAdded' as const, data: command }];
  },
);

/**
 * POST /api/users: a member of the key's organization (an assignee of enrollments). The address is
 * held first, on its reservation stream, so it is one user across the service as a sign-up's is.
 */
export const addMemberRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/users',
    {
      config: { access: 'keys:write' },
      schema: {
        operationId: 'addUser',
        tags: ['keys'],
        summary: 'Add a member to the organization',
        body: AddMemberBody,
        response: { 201: userDataSchema },
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      const { email, first_name, last_name } = request.body;
      const userId = newUserId();
      const metadata = eventMetadata(request);
      const now = deps.clock();
      await handleCommand({
        store: deps.store,
        stream: emailReservationStream.name(email),
        decider: holdEmail,
        command: { email, userId, organizationId },
        metadata,
        now,
      });
      const result = await handleCommand({
        store: deps.store,
        stream: userStream.name(userId),
        decider: addMember,
        command: {
          userId,
          organizationId,
          email,
          firstName: first_name ?? null,
          lastName: last_name ?? null,
        },
        metadata,
        now,
      });
      await readYourWrites(deps, result.appended?.position, [usersProjection]);
      // The read model's row when it is there: its creation time is the one a GET shows.
      const user = await readMember(deps.pool, organizationId, userId);
      return reply
        .code(201)
        .header('location', memberPath(userId))
        .send(
          user ?? {
            id: userId,
            email,
            firstName: first_name ?? null,
            lastName: last_name ?? null,
            createdAt: now.toISOString(),
          },
        );
    },
  );
};
