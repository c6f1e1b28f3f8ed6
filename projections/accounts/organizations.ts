import type { OrganizationEvent } from '../../src/domain/accounts/events.ts';
import type { Projection } from '../../src/projection/types.ts';

export const ORGANIZATIONS = 'organizations';

export interface OrganizationRow {
  organization_id: string;
  name: string;
  credit_balance: number;
  created_at: Date;
}

/** What a credit event does to the balance: a reservation holds credits, a grant or refund adds. */
export function balanceChange(event: { type: string; data: unknown }): number {
  const amount = (event.data as { amount?: number }).amount ?? 0;
  if (event.type === 'CreditsReserved') return -amount;
  if (event.type === 'CreditsGranted' || event.type === 'CreditsRefunded') return amount;
  return 0;
}

/**
 * Organizations and their credit balance. A balance change is not idempotent by itself, so each row
 * remembers the last stream revision it applied and skips anything at or below it. The organization of
 * an undone bootstrap is gone from here: nobody holds a key to it.
 */
export const organizationsProjection: Projection<OrganizationEvent> = {
  name: 'organizations',
  version: 1,
  handles: [
    'OrganizationCreated',
    'CreditsGranted',
    'OrganizationAbandoned',
    'CreditsReserved',
    'CreditsRefunded',
  ],
  tables: {
    [ORGANIZATIONS]: (t) => [
      `CREATE TABLE ${t} (
        organization_id text PRIMARY KEY,
        name            text NOT NULL,
        credit_balance  integer NOT NULL DEFAULT 0,
        stream_revision bigint NOT NULL,
        created_at      timestamptz NOT NULL
      )`,
    ],
  },
  async apply(events, { tx, table }) {
    const organizations = table(ORGANIZATIONS);
    for (const event of events) {
      if (event.type === 'OrganizationCreated') {
        const { data } = event;
        await tx.query(
          `INSERT INTO ${organizations} (organization_id, name, stream_revision, created_at)
           VALUES ($1, $2, $3, $4) ON CONFLICT (organization_id) DO NOTHING`,
          [data.organizationId, data.name, String(event.revision), event.recordedAt],
        );
      } else if (
        event.type === 'CreditsGranted' ||
        event.type === 'CreditsReserved' ||
        event.type === 'CreditsRefunded'
      ) {
        const { data } = event;
        await tx.query(
          `UPDATE ${organizations} SET credit_balance = credit_balance + $2, stream_revision = $3
           WHERE organization_id = $1 AND stream_revision < $3`,
          [data.organizationId, balanceChange(event), String(event.revision)],
        );
      } else if (event.type === 'OrganizationAbandoned') {
        await tx.query(`DELETE FROM ${organizations} WHERE organization_id = $1`, [
          event.data.organizationId,
        ]);
      }
    }
  },
};
