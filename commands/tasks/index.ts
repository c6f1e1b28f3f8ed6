import { bulkTasksRoute } from './bulk-tasks.ts';
import { createTaskRoute } from './create-task.ts';
import { deleteTaskRoute, patchTaskRoute } from './edit-task.ts';
import { draftEmailRoute, scheduleEmailRoute } from './task-email.ts';

export const taskCommands = [
  createTaskRoute,
  patchTaskRoute,
  deleteTaskRoute,
  bulkTasksRoute,
  draftEmailRoute,
  scheduleEmailRoute,
];
