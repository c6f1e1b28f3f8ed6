import { z } from 'zod';
import { tasksProjection } from '../../projections/tasks/tasks.ts';
import { BulkResultSchema, BulkTasksBody } from '../../src/domain/tasks/schemas.ts';
import { AppError } from '../../src/errors.ts';
import type { Position } from '../../src/event-store/port.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { eventMetadata, readYourWrites } from '../../src/http/commands.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { checkAssignee } from './create-task.ts';
import { changeTask, removeTask, type TaskChange } from './edit-task.ts';

type Body = z.infer<typeof BulkTasksBody>;

/** The change one bulk action makes to one task (delete has its own command). */
function changeOf(body: Body, taskId: string): TaskChange {
  switch (body.action) {
    case 'complete':
      return { taskId, fields: {}, status: 'completed' };
    case 'skip':
      return { taskId, fields: {}, status: 'skipped' };
    case 'reassign':
      return { taskId, fields: { assigneeUserId: body.assigneeUserId! } };
    default:
      return { taskId, fields: { dueAt: body.dueAt! } };
  }
}

/**
 * POST /api/tasks/bulk: one action on up to 500 tasks, one result per task in the order sent (a task
 * named twice answers twice). Never all-or-nothing: a task that cannot take the action says why (its
 * error code) and the others go on. The assignee of a reassign is checked once, before any task.
 */
export const bulkTasksRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tasks/bulk',
    {
      config: { access: 'tasks:write' },
      schema: {
        operationId: 'bulkUpdateTasks',
        tags: ['tasks'],
        summary: 'Complete, skip, reassign, reschedule or delete many tasks',
        body: BulkTasksBody,
        response: { 200: z.object({ data: z.array(BulkResultSchema) }) },
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
      const body = request.body;
      if (body.assigneeUserId !== undefined)
        await checkAssignee(deps.store, organizationId, body.assigneeUserId, 'assigneeUserId');
      const metadata = eventMetadata(request);
      const data: z.infer<typeof BulkResultSchema>[] = [];
      let last: Position | undefined;
      // One at a time, in order: the last position written is the one the read model must reach.
      for (const taskId of body.taskIds) {
        try {
          const position =
            body.action === 'delete'
              ? await removeTask(deps, organizationId, taskId, metadata)
              : (await changeTask(deps, organizationId, changeOf(body, taskId), metadata)).position;
          last = position ?? last;
          data.push({ taskId, result: 'ok' });
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          data.push({ taskId, result: 'error', code: error.code, detail: error.detail });
        }
      }
      await readYourWrites(deps, last, [tasksProjection]);
      return { data };
    },
  );
};
