import { taskCommands } from '../../commands/tasks/index.ts';
import { taskEmailWorker } from '../../processes/tasks/email-worker.ts';
import { sequenceTasksWorker } from '../../processes/tasks/sequence-worker.ts';
import { sequenceTasksReactor } from '../../projections/tasks/sequence-tasks.ts';
import { taskEmailsReactor } from '../../projections/tasks/task-emails.ts';
import { tasksProjection } from '../../projections/tasks/tasks.ts';
import { taskQueries } from '../../queries/tasks/index.ts';
import { taskStream } from '../../src/domain/tasks/task.ts';
import type { Feature } from '../../src/feature.ts';

/** Tasks: work for a person, made by hand or by a sequence step coming due (which they advance). */
export const tasksFeature: Feature = {
  name: 'tasks',
  streams: [taskStream],
  commands: taskCommands,
  queries: taskQueries,
  projections: [tasksProjection, sequenceTasksReactor, taskEmailsReactor],
  workers: [sequenceTasksWorker, taskEmailWorker],
};
