import type { LeadEnrollmentEvent } from '../../src/domain/sequences/events.ts';
import type { Enrollment } from '../../src/domain/sequences/streams.ts';
import type { Projection } from '../../src/projection/types.ts';

export const ENROLLMENTS = 'sequence_enrollments';

export interface EnrollmentRow {
  id: string;
  organization_id: string;
  sequence_id: string;
  lead_id: string;
  assignee_user_id: string | null;
  sender_account_ids: Enrollment['senderAccountIds'];
  status: Enrollment['status'];
  finished_reason: string | null;
  enrolled_at: string;
  updated_at: string;
}

/** What the read model keeps of an enrollment (progress through the steps lives on the lead's stream). */
export type ListedEnrollment = Omit<Enrollment, 'stepsDone' | 'lastStepAt'>;

export const enrollmentFromRow = (row: EnrollmentRow): ListedEnrollment => ({
  enrollmentId: row.id,
  organizationId: row.organization_id,
  sequenceId: row.sequence_id,
  leadId: row.lead_id,
  assigneeUserId: row.assignee_user_id,
  senderAccountIds: row.sender_account_ids,
  status: row.status,
  finishedReason: row.finished_reason,
  enrolledAt: row.enrolled_at,
  updatedAt: row.updated_at,
});

/**
 * Enrollments by sequence (listing, stats, the delete check). Written by hand: one lead stream holds
 * many enrollments. Re-applying an event changes nothing (an insert of a known id, a status already set).
 */
export const enrollmentsProjection: Projection<
  Extract<LeadEnrollmentEvent, { type: 'LeadEnrolled' | 'EnrollmentStatusChanged' }>
> = {
  name: 'enrollments',
  version: 1,
  handles: ['LeadEnrolled', 'EnrollmentStatusChanged'],
  tables: {
    [ENROLLMENTS]: (t) => [
      `CREATE TABLE ${t} (
        id text PRIMARY KEY,
        organization_id text NOT NULL,
        sequence_id text NOT NULL,
        lead_id text NOT NULL,
        assignee_user_id text,
        sender_account_ids jsonb NOT NULL,
        status text NOT NULL,
        finished_reason text,
        enrolled_at text NOT NULL,
        updated_at text NOT NULL
      )`,
      `CREATE INDEX ${t}_by_sequence ON ${t} (sequence_id, enrolled_at, id)`,
    ],
  },
  async apply(events, { tx, table }) {
    const t = table(ENROLLMENTS);
    for (const event of events) {
      if (event.type === 'LeadEnrolled') {
        const d = event.data;
        await tx.query(
          `INSERT INTO ${t} VALUES ($1, $2, $3, $4, $5, $6, 'active', NULL, $7, $7) ON CONFLICT (id) DO NOTHING`,
          [
            d.enrollmentId,
            d.organizationId,
            d.sequenceId,
            d.leadId,
            d.assigneeUserId,
            JSON.stringify(d.senderAccountIds),
            d.at,
          ],
        );
      } else {
        const d = event.data;
        await tx.query(`UPDATE ${t} SET status = $2, finished_reason = $3, updated_at = $4 WHERE id = $1`, [
          d.enrollmentId,
          d.to,
          d.finishedReason,
          d.at,
        ]);
      }
    }
  },
};
