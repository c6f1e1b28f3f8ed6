import type { UserEvent } from '../../src/domain/accounts/events.ts';
import type { Projection } from '../../src/projection/types.ts';

export const USERS = 'users';

export interface UserRow {
  user_id: string;
  organization_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  created_at: Date;
}

/**
 * Users as the API shows them. The password hash stays in the user's stream; no query needs it. The
 * user of an undone bootstrap is deleted, which frees its email for the bootstrap that retries: in the
 * log the abandonment always comes before that new registration.
 */
export const usersProjection: Projection<UserEvent> = {
  name: 'users',
  version: 1,
  handles: ['UserRegistered', 'UserAbandoned', 'MemberAdded'],
  tables: {
    [USERS]: (t) => [
      `CREATE TABLE ${t} (
        user_id         text PRIMARY KEY,
        organization_id text NOT NULL,
        email           text NOT NULL UNIQUE,
        first_name      text,
        last_name       text,
        created_at      timestamptz NOT NULL
      )`,
    ],
  },
  async apply(events, { tx, table }) {
    for (const event of events) {
      if (event.type === 'UserAbandoned') {
        await tx.query(`DELETE FROM ${table(USERS)} WHERE user_id = $1`, [event.data.userId]);
        continue;
      }
      const { data, recordedAt } = event;
      await tx.query(
        `INSERT INTO ${table(USERS)} (user_id, organization_id, email, first_name, last_name, created_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (user_id) DO NOTHING`,
        [data.userId, data.organizationId, data.email, data.firstName, data.lastName, recordedAt],
      );
    }
  },
};
