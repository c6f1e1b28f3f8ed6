import { SENDER_ACCOUNTS } from '../../projections/sequences/sender-accounts.ts';
import { handleCommand, loadState } from '../../src/command.ts';
import type { Pool } from '../../src/db/pool.ts';
import { isLeadId } from '../../src/domain/leads/identity.ts';
import { isSenderAccountId } from '../../src/domain/sequences/access.ts';
import type { LeadEnrollmentEvent } from '../../src/domain/sequences/events.ts';
import type { EnrollOutcome } from '../../src/domain/sequences/schemas.ts';
import {
  enrollmentIdOf,
  type LeadEnrollments,
  leadEnrollmentsStream,
  type SequenceState,
  senderAccountStream,
} from '../../src/domain/sequences/streams.ts';
import type { EventMetadata, EventStore, Position } from '../../src/event-store/port.ts';
import { followLead } from '../leads/identity.ts';
import { defaultSenders } from './senders.ts';

export interface Senders {
  email?: string;
  linkedin?: string;
}

export interface EnrollLead {
  organizationId: string;
  sequence: SequenceState;
  leadId: string;
  assigneeUserId: string | null;
  senderAccountIds: Senders;
  skipActiveSequenceConflicts: boolean;
}

/** Why a lead was not enrolled: thrown by the decider, answered as the lead's outcome. */
class NotEnrolled extends Error {
  constructor(
    readonly outcome: 'skipped' | 'failed',
    readonly reason: string,
  ) {
    super(reason);
  }
}

/**
 * On the lead's enrollments stream: once per sequence (`already_enrolled`), and with
 * `skipActiveSequenceConflicts` not while active or paused in another (`already_active_in:<id>`).
 * Both decided on one stream, so two enrollments of a lead racing cannot both pass.
 */
const enroll = leadEnrollmentsStream.decider(
  (command: Omit<EnrollLead, 'sequence'> & { sequenceId: string }, state: LeadEnrollments, now) => {
    if (state.has(command.sequenceId)) throw new NotEnrolled('skipped', 'already_enrolled');
    if (command.skipActiveSequenceConflicts) {
      for (const [sequenceId, e] of state) {
        if (e.status === 'active' || e.status === 'paused')
          throw new NotEnrolled('skipped', `already_active_in:${sequenceId}`);
      }
    }
    const event: LeadEnrollmentEvent = {
      type: 'LeadEnrolled',
      data: {
        enrollmentId: enrollmentIdOf(command.leadId, command.sequenceId),
        organizationId: command.organizationId,
        sequenceId: command.sequenceId,
        leadId: command.leadId,
        assigneeUserId: command.assigneeUserId,
        senderAccountIds: command.senderAccountIds,
        at: now.toISOString(),
      },
    };
    return [event];
  },
);

/** What a sequence's steps need of a lead: an email for an email step, a profile for a LinkedIn one. */
function missingChannel(
  sequence: SequenceState,
  lead: { emailAddresses: unknown[]; linkedinUrl: string | null },
) {
  if (sequence.steps.some((s) => s.type === 'email') && lead.emailAddresses.length === 0)
    return 'no_email_for_email_step';
  if (sequence.steps.some((s) => s.type === 'linkedin') && !lead.linkedinUrl)
    return 'no_linkedin_for_linkedin_step';
  return undefined;
}

/**
 * Enrolls one lead (the API and the add_to_sequence executor both come here): a lead merged into
 * another is enrolled as that one. Answers the lead's outcome, never throws for the lead's sake.
 */
export async function enrollLead(
  deps: { store: EventStore; clock: () => Date },
  request: EnrollLead,
  metadata: EventMetadata,
): Promise<EnrollOutcome & { position?: Position }> {
  const { leadId, sequence } = request;
  const lead = isLeadId(leadId) ? await followLead(deps.store, leadId) : undefined;
  if (lead?.status !== 'live' || lead.organizationId !== request.organizationId)
    return { leadId, outcome: 'failed', reason: 'lead_not_found' };
  const missing = missingChannel(sequence, lead.data);
  if (missing) return { leadId, outcome: 'failed', reason: missing };
  try {
    const result = await handleCommand({
      store: deps.store,
      stream: leadEnrollmentsStream.name(lead.id),
      decider: enroll,
      command: { ...request, leadId: lead.id, sequenceId: sequence.id },
      metadata,
      now: deps.clock(),
      maxRetries: 50,
    });
    return {
      leadId,
      outcome: 'enrolled',
      enrollmentId: enrollmentIdOf(lead.id, sequence.id),
      position: result.appended?.position,
    };
  } catch (error) {
    if (error instanceof NotEnrolled) return { leadId, outcome: error.outcome, reason: error.reason };
    throw error;
  }
}

/**
 * The sender accounts of an enrollment: those named, else the assignee's own (its oldest live account
 * of each type), read from their streams (defaultSenders: one made a moment ago counts, one deleted a
 * moment ago does not); the read model's rows add the accounts made before members' sender lists were
 * kept.
 */
export async function sendersFor(
  pool: Pool,
  organizationId: string,
  assigneeUserId: string | null,
  named: Senders | undefined,
  store: EventStore,
): Promise<Senders> {
  if (named && (named.email || named.linkedin)) return named;
  if (!assigneeUserId) return {};
  const { rows } = await pool.query<{ id: string; type: 'email' | 'linkedin' }>(
    `SELECT id, type FROM ${SENDER_ACCOUNTS}
     WHERE organization_id = $1 AND user_id = $2 ORDER BY created_at DESC, id DESC`,
    [organizationId, assigneeUserId],
  );
  // Newest first, so that the oldest of each type is the one left in the object.
  // The read model's rows add the accounts made before members' sender lists were kept.
  return defaultSenders(
    store,
    organizationId,
    assigneeUserId,
    rows.map((r) => r.id),
  );
}

/** The first named sender account that is not a live account of the organization of its type, if any. */
export async function invalidSender(
  store: EventStore,
  organizationId: string,
  named: Senders | undefined,
): Promise<{ path: string; message: string } | undefined> {
  for (const type of ['email', 'linkedin'] as const) {
    const id = named?.[type];
    if (id === undefined) continue;
    const { state } = isSenderAccountId(id)
      ? await loadState(store, senderAccountStream.name(id), senderAccountStream)
      : { state: undefined };
    if (state?.status !== 'live' || state.organizationId !== organizationId)
      return { path: `senderAccountIds.${type}`, message: `no sender account ${id} in this organization` };
    if (state.type !== type)
      return { path: `senderAccountIds.${type}`, message: `${id} is a ${state.type} account` };
  }
  return undefined;
}
