import { z } from 'zod';
import type { EventsOf } from '../../stream.ts';

export const TASK_TYPES = ['email', 'call', 'linkedin', 'manual'] as const;
export const TASK_STATUSES = ['pending', 'scheduled', 'completed', 'skipped'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** What a PATCH (or a bulk reassign / reschedule) may change besides the status. */
const Editable = z.object({
  title: z.string(),
  notes: z.string().nullable(),
  dueAt: z.string(),
  assigneeUserId: z.string(),
});

/** What a task is made with: its event and its API view share these. */
export const taskFields = {
  type: z.enum(TASK_TYPES),
  title: z.string(),
  notes: z.string().nullable(),
  dueAt: z.string(),
  /** null: nobody yet (a sequence task of an enrollment without an assignee). */
  assigneeUserId: z.string().nullable(),
  leadId: z.string().nullable(),
  sequenceId: z.string().nullable(),
  enrollmentId: z.string().nullable(),
  stepIndex: z.number().int().nullable(),
};

/** Events of a task's stream (taskStream). */
export const taskEvents = {
  TaskCreated: z.object({
    taskId: z.string(),
    organizationId: z.string(),
    ...taskFields,
    at: z.string(),
  }),
  TaskEdited: z.object({ taskId: z.string(), fields: Editable.partial(), at: z.string() }),
  TaskStatusChanged: z.object({
    taskId: z.string(),
    from: z.enum(TASK_STATUSES),
    to: z.enum(TASK_STATUSES),
    at: z.string(),
  }),
  TaskDeleted: z.object({ taskId: z.string(), at: z.string() }),
  /** A draft (by the draft route, or the user's edit of it): the whole email as it now reads. */
  TaskEmailDrafted: z.object({
    taskId: z.string(),
    to: z.string(),
    from: z.string(),
    /** The sender account it goes out through (its dailyLimit applies). */
    senderAccountId: z.string(),
    subject: z.string(),
    body: z.string(),
    at: z.string(),
  }),
  /** To go out at sendAt (again after a daily limit moved it: `note` says so). */
  TaskEmailScheduled: z.object({
    taskId: z.string(),
    organizationId: z.string(),
    /** Sends of one sender account go one at a time: its daily count is exact. */
    senderAccountId: z.string(),
    sendAt: z.string(),
    note: z.string().nullable(),
    at: z.string(),
  }),
  /** The send intent, recorded before the SMTP call: a send found begun is never made again. */
  TaskEmailSending: z.object({
    taskId: z.string(),
    /** The Message-ID the message carries (absent in events recorded before it was derived). */
    messageId: z.string().optional(),
    at: z.string(),
  }),
  TaskEmailSent: z.object({ taskId: z.string(), messageId: z.string(), at: z.string() }),
  /** The SMTP server's answer (or why no answer came). */
  TaskEmailFailed: z.object({ taskId: z.string(), error: z.string(), at: z.string() }),
};

export const EMAIL_STATUSES = ['none', 'drafted', 'scheduled', 'sending', 'sent', 'failed'] as const;

export type TaskEvent = EventsOf<typeof taskEvents>;
export type TaskEdit = z.infer<typeof Editable>;
