import type { TaskEvent } from '../../src/domain/tasks/events.ts';
import type { Projection } from '../../src/projection/types.ts';

export const TASK_EMAIL_KIND = 'task-email';

/**
 * Task emails, a reactor: each schedule of an email (by a user, or a daily limit moving it) becomes a
 * work item due at its sendAt, in the transaction of the reactor's checkpoint. Sends of one sender
 * account share one lease (its daily limit is counted exactly). The item's id names the event, so a
 * batch applied again enqueues nothing; what the worker does is decided on the task's stream. Its
 * version must never be bumped.
 */
export const taskEmailsReactor: Projection<Extract<TaskEvent, { type: 'TaskEmailScheduled' }>> = {
  name: 'task-emails',
  version: 1,
  handles: ['TaskEmailScheduled'],
  tables: {},
  async apply(batch, { enqueue }) {
    await enqueue(
      batch.map((event) => ({
        id: `${TASK_EMAIL_KIND}:${event.data.taskId}:${event.id}`,
        kind: TASK_EMAIL_KIND,
        organizationId: event.data.organizationId,
        groupKey: `sender:${event.data.senderAccountId}`,
        groupLimit: 1,
        payload: { taskId: event.data.taskId },
        runAt: new Date(event.data.sendAt),
      })),
    );
  },
};
