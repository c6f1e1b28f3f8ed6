import { z } from 'zod';
import { tasksProjection } from '../../projections/tasks/tasks.ts';
import { loadTaskForWrite } from '../../services/tasks/load.ts';
import { handleCommand } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { taskNotFound, taskView } from '../../src/domain/tasks/access.ts';
import type { TaskEdit, TaskEvent } from '../../src/domain/tasks/events.ts';
import { PatchTaskBody, TaskParams, TaskSchema } from '../../src/domain/tasks/schemas.ts';
import { isDone, type TaskState, taskStream } from '../../src/domain/tasks/task.ts';
import { AppError } from '../../src/errors.ts';
import type { EventMetadata, Position } from '../../src/event-store/port.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { checkAssignee, storedInstant } from './create-task.ts';

export interface TaskChange {
  taskId: string;
  fields: Partial<TaskEdit>;
  status?: 'completed' | 'skipped';
  /** An edit of the email's draft. */
  email?: { subject?: string; body?: string };
}

const editableEmail = new Set(['drafted', 'failed']);

/** An edit of a live task and, when asked, its end (completed or skipped): a done task ends once. */
export const editTask = taskStream.decider((command: TaskChange, state, now): TaskEvent[] => {
  if (state.life !== 'live') throw taskNotFound(command.taskId);
  const at = now.toISOString();
  const events: TaskEvent[] = [];
  if (Object.keys(command.fields).length > 0)
    events.push({ type: 'TaskEdited', data: { taskId: command.taskId, fields: command.fields, at } });
  if (command.email !== undefined) {
    if (!state.email || !editableEmail.has(state.email.status))
      throw new AppError(
        'invalid_transition',
        `Task ${command.taskId} has no email draft to edit (draft it first; a scheduled or sent email is not edited).`,
        { currentStatus: state.email?.status ?? 'none', allowedActions: state.email ? [] : ['draft-email'] },
      );
    const { to, from, senderAccountId, subject, body } = state.email;
    events.push({
      type: 'TaskEmailDrafted',
      data: { taskId: command.taskId, to, from, senderAccountId, subject, body, ...command.email, at },
    });
  }
  if (command.status !== undefined) {
    if (isDone(state.status))
      throw new AppError('invalid_transition', `Task ${command.taskId} is already ${state.status}.`, {
        currentStatus: state.status,
        allowedActions: [],
      });
    events.push({
      type: 'TaskStatusChanged',
      data: { taskId: command.taskId, from: state.status, to: command.status, at },
    });
  }
  return events;
});

/**
 * Deletes a live task. An open task of a sequence step is skipped first: its enrollment waits on
 * that step's task being done, so deleting it counts as skipping the step (the enrollment moves on,
 * the next step counting its waitDays from the delete) instead of waiting for ever.
 */
export const deleteTask = taskStream.decider((command: { taskId: string }, state, now): TaskEvent[] => {
  if (state.life !== 'live') throw taskNotFound(command.taskId);
  const at = now.toISOString();
  const { taskId } = command;
  const events: TaskEvent[] = [];
  if (state.enrollmentId !== null && !isDone(state.status))
    events.push({ type: 'TaskStatusChanged', data: { taskId, from: state.status, to: 'skipped', at } });
  events.push({ type: 'TaskDeleted', data: { taskId, at } });
  return events;
});

type Deps = Pick<ServiceDeps, 'store' | 'clock'>;

/** Checks and applies one change of one task of the organization (PATCH and bulk share it). */
export async function changeTask(
  deps: Deps,
  organizationId: string,
  change: TaskChange,
  metadata: EventMetadata,
): Promise<{ state: TaskState; position: Position | undefined }> {
  await loadTaskForWrite(deps.store, change.taskId, { organizationId });
  const { assigneeUserId, dueAt } = change.fields;
  if (assigneeUserId !== undefined)
    await checkAssignee(deps.store, organizationId, assigneeUserId, 'assigneeUserId');
  const fields = dueAt === undefined ? change.fields : { ...change.fields, dueAt: storedInstant(dueAt) };
  const result = await handleCommand({
    store: deps.store,
    stream: taskStream.name(change.taskId),
    decider: editTask,
    command: { ...change, fields },
    metadata,
    now: deps.clock(),
  });
  return { state: result.state, position: result.appended?.position };
}

/** Deletes one task of the organization. */
export async function removeTask(
  deps: Deps,
  organizationId: string,
  taskId: string,
  metadata: EventMetadata,
) {
  await loadTaskForWrite(deps.store, taskId, { organizationId });
  const result = await handleCommand({
    store: deps.store,
    stream: taskStream.name(taskId),
    decider: deleteTask,
    command: { taskId },
    metadata,
    now: deps.clock(),
  });
  return result.appended?.position;
}

/** PATCH /api/tasks/{taskId}: edits what it sends; `status: completed | skipped` ends the task. */
export const patchTaskRoute: RouteModule = (app, deps) => {
  app.patch(
    '/api/tasks/:taskId',
    {
      config: { access: 'tasks:write' },
      schema: {
        operationId: 'patchTask',
        tags: ['tasks'],
        summary: 'Edit a task, or complete or skip it',
        params: TaskParams,
        body: PatchTaskBody,
        response: { 200: TaskSchema },
      },
    },
    async (request) => {
      const { status, email, ...fields } = request.body;
      const { state, position } = await changeTask(
        deps,
        principalOf(request).organizationId,
        { taskId: request.params.taskId, fields, ...(status ? { status } : {}), ...(email ? { email } : {}) },
        eventMetadata(request),
      );
      await readYourWrites(deps, position, [tasksProjection]);
      return taskView(state);
    },
  );
};

/** DELETE /api/tasks/{taskId}: 204. */
export const deleteTaskRoute: RouteModule = (app, deps) => {
  app.delete(
    '/api/tasks/:taskId',
    {
      config: { access: 'tasks:write' },
      schema: {
        operationId: 'deleteTask',
        tags: ['tasks'],
        summary: 'Delete a task',
        params: TaskParams,
        response: { 204: z.null() },
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      const position = await removeTask(deps, organizationId, request.params.taskId, eventMetadata(request));
      await readYourWrites(deps, position, [tasksProjection]);
      return reply.code(204).send(null);
    },
  );
};
