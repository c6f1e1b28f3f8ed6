import type { Principal } from '../../src/auth/scopes.ts';
import { loadState } from '../../src/command.ts';
import { AppError } from '../../src/errors.ts';
import type { EventStore } from '../../src/event-store/port.ts';
import { idForm, randomId } from '../../src/ids.ts';
import type { TaskView } from '../../src/domain/tasks/schemas.ts';
import { type TaskState, taskStream } from '../../src/domain/tasks/task.ts';

export const newTaskId = () => randomId('task');
export const isTaskId = idForm('task');

export const taskNotFound = (taskId: string) => new AppError('not_found', `No task ${taskId}.`);
const otherOrganization = () => new AppError('forbidden', 'The task belongs to another organization.');

/** The task as its stream tells it, for a command: 404 when there is none (or it was deleted), 403 when not the key's. */
export async function loadTaskForWrite(
  store: EventStore,
  taskId: string,
  principal: Pick<Principal, 'organizationId'>,
): Promise<TaskState> {
  if (!isTaskId(taskId)) throw taskNotFound(taskId);
  const { state } = await loadState(store, taskStream.name(taskId), taskStream);
  if (state.life === 'none') throw taskNotFound(taskId);
  if (state.organizationId !== principal.organizationId) throw otherOrganization();
  if (state.life !== 'live') throw taskNotFound(taskId);
  return state;
}

/** The same checks for a query, on the read-model row it read (undefined: no such task). */
export function readableTask<Row extends { organization_id: string }>(
  row: Row | undefined,
  taskId: string,
  principal: Principal,
): Row {
  if (!row) throw taskNotFound(taskId);
  if (row.organization_id !== principal.organizationId) throw otherOrganization();
  return row;
}

export const taskView = ({ life: _, taskId, organizationId: __, ...rest }: TaskState): TaskView => ({
  id: taskId,
  ...rest,
});
