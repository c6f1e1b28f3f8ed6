import { tasksProjection } from '../../projections/tasks/tasks.ts';
import { isMemberOf } from '../../services/accounts/members.ts';
import { handleCommand, loadState } from '../../src/command.ts';
import { isLeadId } from '../../src/domain/leads/identity.ts';
import { leadStream } from '../../src/domain/leads/lead-state.ts';
import { badReference } from '../../src/domain/sequences/access.ts';
import { newTaskId, taskView } from '../../src/domain/tasks/access.ts';
import type { TaskEvent } from '../../src/domain/tasks/events.ts';
import { CreateTaskBody, TaskSchema } from '../../src/domain/tasks/schemas.ts';
import { taskStream } from '../../src/domain/tasks/task.ts';
import { AppError } from '../../src/errors.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';

export const taskPath = (taskId: string) => `/api/tasks/${taskId}`;

type Created = Extract<TaskEvent, { type: 'TaskCreated' }>['data'];

/** Creates a task once: a repeat of the same id (a worker's retry) decides nothing new. */
export const createTask = taskStream.decider((command: Omit<Created, 'at'>, state, now): TaskEvent[] => {
  if (state.life !== 'none') return [];
  return [{ type: 'TaskCreated', data: { ...command, at: now.toISOString() } }];
});

/** An instant as the stored form (UTC, milliseconds): the form the condition evaluator compares as time. */
export const storedInstant = (text: string) => new Date(text).toISOString();

/** `assigneeUserId` names a member of the organization: a 400 naming the field otherwise. */
export async function checkAssignee(store: EventStore, organizationId: string, userId: string, path: string) {
  if (!(await isMemberOf(store, organizationId, userId)))
    throw badReference(path, `no user ${userId} in this organization`);
}

/** `leadId` names a live lead of the organization: a 400 naming the field otherwise. */
async function checkLead(store: EventStore, organizationId: string, leadId: string) {
  const state = isLeadId(leadId)
    ? (await loadState(store, leadStream.name(leadId), leadStream)).state
    : undefined;
  if (state?.status !== 'live' || state.organizationId !== organizationId)
    throw badReference('leadId', `no lead ${leadId} in this organization`);
}

/** POST /api/tasks: a manual task (sequences make the others). */
export const createTaskRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tasks',
    {
      config: { access: 'tasks:write' },
      schema: {
        operationId: 'createTask',
        tags: ['tasks'],
        summary: 'Create a task',
        body: CreateTaskBody,
        response: { 201: TaskSchema },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const { organizationId } = principal;
      const body = request.body;
      const assigneeUserId = body.assigneeUserId ?? principal.userId;
      await checkAssignee(deps.store, organizationId, assigneeUserId, 'assigneeUserId');
      if (body.leadId !== undefined) await checkLead(deps.store, organizationId, body.leadId);
      const taskId = newTaskId();
      const now = deps.clock();
      const result = await handleCommand({
        store: deps.store,
        stream: taskStream.name(taskId),
        decider: createTask,
        command: {
          taskId,
          organizationId,
          type: body.type,
          title: body.title,
          notes: body.notes ?? null,
          dueAt: body.dueAt ? storedInstant(body.dueAt) : now.toISOString(),
          assigneeUserId,
          leadId: body.leadId ?? null,
          sequenceId: null,
          enrollmentId: null,
          stepIndex: null,
        },
        metadata: eventMetadata(request),
        now,
      });
      if (result.state.life !== 'live') throw new AppError('internal', 'The task was not created.');
      await readYourWrites(deps, result.appended?.position, [tasksProjection]);
      return reply.code(201).header('location', taskPath(taskId)).send(taskView(result.state));
    },
  );
};
