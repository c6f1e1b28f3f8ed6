import type { Principal } from '../../auth/scopes.ts';
import { AppError } from '../../errors.ts';
import { idForm, randomId } from '../../ids.ts';
import type { TaskView } from './schemas.ts';
import type { TaskState } from './task.ts';

export const newTaskId = () => randomId('task');
export const isTaskId = idForm('task');

export const taskNotFound = (taskId: string) => new AppError('not_found', `No task ${taskId}.`);
export const otherOrganization = () => new AppError('forbidden', 'The task belongs to another organization.');

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
