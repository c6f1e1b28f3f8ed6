import { z } from 'zod';
import { pageQuery } from '../../http/pagination.ts';
import { isPromptId } from '../prompts/access.ts';
import { ENROLLMENT_STATUSES, SENDER_TYPES, SEQUENCE_STATUSES, STEP_TYPES } from './events.ts';

// Ids' forms are checked in the handlers: a malformed id names nothing and answers 404, not 400.
export const SequenceParams = z.object({ sequenceId: z.string() });
export const EnrollmentParams = z.object({ enrollmentId: z.string() });
export const SenderAccountParams = z.object({ senderAccountId: z.string() });

const Id = z.string().min(1).max(200);
const StepIn = z
  .strictObject({
    type: z.enum(STEP_TYPES),
    waitDays: z.number().int().min(0).max(365).describe('days after the previous step'),
    subject: z.string().max(1000).optional(),
    body: z.string().max(100_000).optional(),
    promptTemplateId: z
      .string()
      .refine(isPromptId, 'a prompt template id (prm_ and 20 characters)')
      .optional()
      .describe("an email step's prompt template: its draft is written by the llm provider"),
  })
  .refine((step) => step.promptTemplateId === undefined || step.type === 'email', {
    path: ['promptTemplateId'],
    message: 'only an email step is drafted from a prompt template',
  });
const Steps = z.array(StepIn).max(50);
const Name = z.string().trim().min(1).max(200);

export const CreateSequenceBody = z.strictObject({
  name: Name,
  sourceTableId: Id.optional().describe('the research table whose add_to_sequence columns may target it'),
  steps: Steps,
});

export const PatchSequenceBody = z
  .strictObject({ name: Name.optional(), sourceTableId: Id.nullable().optional(), steps: Steps.optional() })
  .refine((body) => Object.keys(body).length > 0, {
    message: 'send at least one of name, sourceTableId, steps',
  });

const Step = z.object({
  type: z.enum(STEP_TYPES),
  waitDays: z.number(),
  subject: z.string().optional(),
  body: z.string().optional(),
  promptTemplateId: z.string().optional(),
});

export const SequenceSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    sourceTableId: z.string().nullable(),
    steps: z.array(Step),
    status: z.enum(SEQUENCE_STATUSES),
    allowedActions: z.array(z.string()),
    clonedFrom: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Sequence' });

export const SequenceStatsSchema = z.object({
  enrolled: z.number().int(),
  active: z.number().int(),
  paused: z.number().int(),
  finished: z.number().int(),
  failed: z.number().int(),
});

export const SequenceDetailSchema = SequenceSchema.extend({ stats: SequenceStatsSchema }).meta({
  id: 'SequenceDetail',
});

export const ListSequencesQuery = pageQuery({ max: 100, default: 50 }).extend({
  status: z.enum(SEQUENCE_STATUSES).optional(),
});

const SenderIds = z.strictObject({ email: Id.optional(), linkedin: Id.optional() });

export const EnrollBody = z.strictObject({
  leadIds: z.array(Id).min(1).max(500),
  assigneeUserId: Id.optional(),
  senderAccountIds: SenderIds.optional().describe("default: the assignee's own sender accounts"),
  skipActiveSequenceConflicts: z.boolean().optional(),
});

export const EnrollOutcomeSchema = z.object({
  leadId: z.string(),
  outcome: z.enum(['enrolled', 'skipped', 'failed']),
  reason: z.string().optional(),
  enrollmentId: z.string().optional(),
});
export type EnrollOutcome = z.infer<typeof EnrollOutcomeSchema>;

export const EnrollmentSchema = z
  .object({
    id: z.string(),
    sequenceId: z.string(),
    leadId: z.string(),
    assigneeUserId: z.string().nullable(),
    senderAccountIds: z.object({ email: z.string().optional(), linkedin: z.string().optional() }),
    status: z.enum(ENROLLMENT_STATUSES),
    finishedReason: z.string().nullable(),
    allowedActions: z.array(z.string()),
    enrolledAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Enrollment' });

export const CreateSenderAccountBody = z.strictObject({
  type: z.enum(SENDER_TYPES),
  address: z.string().trim().min(1).max(320),
  userId: Id.describe('the member the account belongs to'),
  dailyLimit: z.number().int().min(1).max(10_000),
});

export const SenderAccountSchema = z
  .object({
    id: z.string(),
    type: z.enum(SENDER_TYPES),
    address: z.string(),
    userId: z.string(),
    dailyLimit: z.number().int(),
    createdAt: z.string(),
  })
  .meta({ id: 'SenderAccount' });
