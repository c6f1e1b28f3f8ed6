import { z } from 'zod';
import type { EventsOf } from '../../stream.ts';

export const STEP_TYPES = ['email', 'call', 'linkedin', 'manual'] as const;
export const SEQUENCE_STATUSES = ['DRAFT', 'ACTIVE', 'PAUSED', 'ARCHIVED'] as const;
export const ENROLLMENT_STATUSES = ['active', 'paused', 'finished', 'failed'] as const;

export const Step = z.object({
  type: z.enum(STEP_TYPES),
  waitDays: z.number().int().min(0).max(365),
  subject: z.string().optional(),
  body: z.string().optional(),
  promptTemplateId: z.string().optional(),
});
export type SequenceStep = z.infer<typeof Step>;

/** Events of a sequence's stream (sequenceStream). */
export const sequenceEvents = {
  SequenceCreated: z.object({
    sequenceId: z.string(),
    organizationId: z.string(),
    name: z.string(),
    sourceTableId: z.string().nullable(),
    steps: z.array(Step),
    clonedFrom: z.string().nullable(),
    at: z.string(),
  }),
  SequenceEdited: z.object({
    sequenceId: z.string(),
    name: z.string().optional(),
    sourceTableId: z.string().nullable().optional(),
    steps: z.array(Step).optional(),
    at: z.string(),
  }),
  SequenceStatusChanged: z.object({
    sequenceId: z.string(),
    from: z.enum(SEQUENCE_STATUSES),
    to: z.enum(SEQUENCE_STATUSES),
    at: z.string(),
  }),
  SequenceDeleted: z.object({ sequenceId: z.string(), at: z.string() }),
};

const Senders = z.object({ email: z.string().optional(), linkedin: z.string().optional() });

/**
 * Events of a lead's enrollments (leadEnrollmentsStream): one stream per lead, so that "once per
 * sequence" and "not active elsewhere" are decided on one stream, atomically.
 */
export const leadEnrollmentEvents = {
  LeadEnrolled: z.object({
    enrollmentId: z.string(),
    organizationId: z.string(),
    sequenceId: z.string(),
    leadId: z.string(),
    assigneeUserId: z.string().nullable(),
    senderAccountIds: Senders,
    at: z.string(),
  }),
  EnrollmentStatusChanged: z.object({
    enrollmentId: z.string(),
    from: z.enum(ENROLLMENT_STATUSES),
    to: z.enum(ENROLLMENT_STATUSES),
    finishedReason: z.string().nullable(),
    at: z.string(),
  }),
  /** A step's task was done (completed, skipped, or its email sent): the next step counts from here. */
  EnrollmentStepDone: z.object({
    enrollmentId: z.string(),
    stepIndex: z.number().int(),
    outcome: z.enum(['completed', 'skipped']),
    taskId: z.string(),
    at: z.string(),
  }),
};

export const SENDER_TYPES = ['email', 'linkedin'] as const;

/** Events of a sender account's stream. */
export const senderAccountEvents = {
  SenderAccountAdded: z.object({
    senderAccountId: z.string(),
    organizationId: z.string(),
    type: z.enum(SENDER_TYPES),
    address: z.string(),
    userId: z.string(),
    dailyLimit: z.number().int(),
    at: z.string(),
  }),
  SenderAccountDeleted: z.object({ senderAccountId: z.string(), at: z.string() }),
};

/** Events of a member's sender list: each account made for the member, listed before it is made. */
export const userSenderEvents = {
  SenderAccountListed: z.object({
    organizationId: z.string(),
    userId: z.string(),
    senderAccountId: z.string(),
  }),
};

/** Events of an add_to_sequence column's routing stream: who each lead went to. */
export const routingEvents = {
  LeadRouted: z.object({ leadId: z.string(), assigneeUserId: z.string() }),
};

export type SequenceEvent = EventsOf<typeof sequenceEvents>;
export type LeadEnrollmentEvent = EventsOf<typeof leadEnrollmentEvents>;
export type SenderAccountEvent = EventsOf<typeof senderAccountEvents>;
export type RoutingEvent = EventsOf<typeof routingEvents>;
export type UserSenderEvent = EventsOf<typeof userSenderEvents>;
