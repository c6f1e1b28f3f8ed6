import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { USERS, type UserRow } from '../../projections/accounts/users.ts';
import { loadState } from '../../src/command.ts';
import type { Pool } from '../../src/db/pool.ts';
import { userStream } from '../../src/domain/accounts/streams.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import { userDataSchema } from './views.ts';

export { userDataSchema };

/** Users are named by UUIDs, those of sign-ups and of members alike. */
export const newUserId = () => randomUUID();
export const memberPath = (userId: string) => `/api/users/${userId}`;
export const UserParams = z.object({ userId: z.string().max(100) });

/** Whether the user exists and belongs to the organization (a sign-up's user or an added member). */
export async function isMemberOf(
  store: EventStore,
  organizationId: string,
  userId: string,
): Promise<boolean> {
  if (!z.uuid().safeParse(userId).success) return false;
  const { state } = await loadState(store, userStream.name(userId), userStream);
  return (
    (state.status === 'registered' || state.status === 'member') && state.organizationId === organizationId
  );
}

export type MemberRow = UserRow & { created_at_exact: string };

export const userView = (row: MemberRow) => ({
  id: row.user_id,
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  createdAt: row.created_at.toISOString(),
});

export const SELECT_MEMBERS = `SELECT user_id, organization_id, email, first_name, last_name, created_at,
  created_at::text AS created_at_exact FROM ${USERS}`;

/** A user of the organization as the read model has it. */
export async function readMember(pool: Pool, organizationId: string, userId: string) {
  const { rows } = await pool.query<MemberRow>(
    `${SELECT_MEMBERS} WHERE user_id = $1 AND organization_id = $2`,
    [userId, organizationId],
  );
  return rows[0] ? userView(rows[0]) : undefined;
}
