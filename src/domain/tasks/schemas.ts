import { z } from 'zod';
import { EMAIL_STATUSES, TASK_STATUSES, TASK_TYPES, taskFields } from './events.ts';

// The id's form is checked in the handlers: a malformed id names nothing and answers 404, not 400.
export const TaskParams = z.object({ taskId: z.string() });

const Title = z.string().trim().min(1).max(500);
const Notes = z.string().max(10_000);
const Instant = z.iso.datetime({ offset: true }).describe('an ISO 8601 date-time');
const UserId = z.string().min(1).max(100);

export const CreateTaskBody = z.strictObject({
  type: z.enum(TASK_TYPES).default('manual'),
  title: Title,
  notes: Notes.optional(),
  dueAt: Instant.optional().describe('default: now'),
  assigneeUserId: UserId.optional().describe("default: the key's user"),
  leadId: z.string().max(100).optional(),
});

/** Completing or skipping is a PATCH of the status; `pending` reopens nothing that is done. */
export const PatchTaskBody = z
  .strictObject({
    title: Title.optional(),
    notes: Notes.nullable().optional(),
    dueAt: Instant.optional(),
    assigneeUserId: UserId.optional(),
    status: z.enum(['completed', 'skipped']).optional(),
    email: z
      .strictObject({ subject: z.string().max(1000).optional(), body: z.string().max(100_000).optional() })
      .optional()
      .describe('edits the draft (drafted or failed emails)'),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'send at least one field' });

const TaskEmailSchema = z
  .object({
    to: z.string(),
    from: z.string(),
    senderAccountId: z.string(),
    subject: z.string(),
    body: z.string(),
    status: z.enum(EMAIL_STATUSES),
    sendAt: z.string().nullable(),
    sentAt: z.string().nullable(),
    messageId: z.string().nullable(),
    error: z.string().nullable().describe("the SMTP server's answer to a failed send, or why the send moved"),
  })
  .meta({ id: 'TaskEmail' });

export const TaskSchema = z
  .object({
    id: z.string(),
    ...taskFields,
    status: z.enum(TASK_STATUSES),
    createdAt: z.string(),
    updatedAt: z.string(),
    completedAt: z.string().nullable(),
    email: TaskEmailSchema.nullable().describe('an email task once drafted'),
  })
  .meta({ id: 'Task' });

export type TaskView = z.infer<typeof TaskSchema>;

export const MAX_TASK_PAGE = 500;

export const BULK_ACTIONS = ['complete', 'skip', 'reassign', 'reschedule', 'delete'] as const;

export const BulkTasksBody = z
  .strictObject({
    taskIds: z.array(z.string().max(100)).min(1).max(500),
    action: z.enum(BULK_ACTIONS),
    assigneeUserId: UserId.optional().describe('for reassign'),
    dueAt: Instant.optional().describe('for reschedule'),
  })
  .refine((body) => body.action !== 'reassign' || body.assigneeUserId !== undefined, {
    message: 'reassign needs assigneeUserId',
    path: ['assigneeUserId'],
  })
  .refine((body) => body.action !== 'reschedule' || body.dueAt !== undefined, {
    message: 'reschedule needs dueAt',
    path: ['dueAt'],
  });

export const BulkResultSchema = z.object({
  taskId: z.string(),
  result: z.enum(['ok', 'error']),
  code: z.string().optional(),
  detail: z.string().optional(),
});

export const ScheduleEmailBody = z.strictObject({
  sendAt: Instant.describe('at least now, at most 90 days ahead'),
});
