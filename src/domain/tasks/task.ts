import { defineStream } from '../../stream.ts';
import { type EMAIL_STATUSES, type TaskEvent, type TaskStatus, taskEvents } from './events.ts';

type Created = Extract<TaskEvent, { type: 'TaskCreated' }>['data'];

export interface TaskEmail {
  to: string;
  from: string;
  senderAccountId: string;
  subject: string;
  body: string;
  status: (typeof EMAIL_STATUSES)[number];
  sendAt: string | null;
  sentAt: string | null;
  messageId: string | null;
  /** The SMTP answer of a failure, or a note (a daily limit moved the send). */
  error: string | null;
}

export interface TaskState extends Omit<Created, 'at'> {
  /** `none` before creation, `deleted` after. */
  life: 'none' | 'live' | 'deleted';
  status: TaskStatus;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  email: TaskEmail | null;
}

export const initialTaskState = (): TaskState => ({
  life: 'none',
  taskId: '',
  organizationId: '',
  type: 'manual',
  title: '',
  notes: null,
  dueAt: '',
  assigneeUserId: null,
  leadId: null,
  sequenceId: null,
  enrollmentId: null,
  stepIndex: null,
  status: 'pending',
  createdAt: '',
  updatedAt: '',
  completedAt: null,
  email: null,
});

/** A task ends as completed or skipped; nothing moves it afterwards. */
export const isDone = (status: TaskStatus) => status === 'completed' || status === 'skipped';

export function evolveTask(state: TaskState, event: TaskEvent): TaskState {
  switch (event.type) {
    case 'TaskCreated': {
      const { at, ...created } = event.data;
      return { ...state, ...created, life: 'live', createdAt: at, updatedAt: at };
    }
    case 'TaskEdited':
      return { ...state, ...event.data.fields, updatedAt: event.data.at };
    case 'TaskStatusChanged': {
      const { to, at } = event.data;
      return { ...state, status: to, updatedAt: at, completedAt: isDone(to) ? at : null };
    }
    case 'TaskDeleted':
      return { ...state, life: 'deleted', updatedAt: event.data.at };
    case 'TaskEmailDrafted': {
      const { taskId: _, at, ...draft } = event.data;
      const email = {
        sendAt: null,
        sentAt: null,
        messageId: null,
        error: null,
        ...draft,
        status: 'drafted' as const,
      };
      return { ...state, email, updatedAt: at };
    }
    case 'TaskEmailScheduled': {
      const { sendAt, note, at } = event.data;
      const email = { ...state.email!, status: 'scheduled' as const, sendAt, error: note };
      return { ...state, email, status: 'scheduled', updatedAt: at };
    }
    case 'TaskEmailSending': {
      const { messageId, at } = event.data;
      const email = { ...state.email!, status: 'sending' as const, messageId: messageId ?? null };
      return { ...state, email, updatedAt: at };
    }
    case 'TaskEmailSent': {
      const { messageId, at } = event.data;
      const email = { ...state.email!, status: 'sent' as const, sentAt: at, messageId, error: null };
      return { ...state, email, updatedAt: at };
    }
    case 'TaskEmailFailed': {
      const { error, at } = event.data;
      return {
        ...state,
        email: { ...state.email!, status: 'failed', error },
        status: 'pending',
        updatedAt: at,
      };
    }
    default: {
      const never: never = event;
      return never;
    }
  }
}

/** `task-<taskId>`: one task, made by hand or by a sequence step coming due. */
export const taskStream = defineStream({
  category: 'task',
  id: (taskId: string) => taskId,
  events: taskEvents,
  initialState: initialTaskState,
  evolve: evolveTask,
  history: { description: 'a task: its type, assignee, due time and status' },
});
