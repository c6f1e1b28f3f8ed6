import type { Principal } from '../../src/auth/scopes.ts';
import { loadState } from '../../src/command.ts';
import { isTaskId, otherOrganization, taskNotFound } from '../../src/domain/tasks/access.ts';
import { type TaskState, taskStream } from '../../src/domain/tasks/task.ts';
import type { EventStore } from '../../src/event-store/port.ts';

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
