import { taskView } from '../../src/domain/tasks/access.ts';
import type { TaskView } from '../../src/domain/tasks/schemas.ts';
import { type TaskState, taskStream } from '../../src/domain/tasks/task.ts';
import { singleStreamProjection } from '../../src/projection/single-stream.ts';

/** Logical name of the read model; queries import it from here. */
export const TASKS = 'tasks';

export interface StoredTask {
  id: string;
  organization_id: string;
  /**
   * The task as the API shows it, keyed by field name: the rows condition evaluator reads a row's
   * `cells` by key, so POST /api/tasks/query filters tasks with the very same SQL as rows.
   */
  cells: TaskView;
}

/** Live tasks by organization, for the list and the query. A deleted task leaves it. */
export const tasksProjection = singleStreamProjection({
  name: 'tasks',
  // 2: indexes for the query's filters and sort (queries/tasks/indexed-conditions.ts).
  version: 2,
  stream: taskStream,
  handles: [
    'TaskCreated',
    'TaskEdited',
    'TaskStatusChanged',
    'TaskDeleted',
    'TaskEmailDrafted',
    'TaskEmailScheduled',
    'TaskEmailSending',
    'TaskEmailSent',
    'TaskEmailFailed',
  ],
  idOf: (event) => event.data.taskId,
  table: {
    name: TASKS,
    key: 'id',
    columns: { id: 'text', organization_id: 'text', cells: 'jsonb' },
    indexes: (t) => [
      `CREATE INDEX ${t}_by_organization ON ${t} (organization_id, id)`,
      // dueAt COLLATE "C": the query compares and sorts it so (a byte order, as ISO instants need).
      `CREATE INDEX ${t}_by_due ON ${t} (organization_id, (cells->>'status'), ((cells->>'dueAt') COLLATE "C"))`,
      `CREATE INDEX ${t}_by_type ON ${t} (organization_id, (cells->>'status'), (cells->>'type'), ((cells->>'dueAt') COLLATE "C"))`,
      // Someone's open tasks by due time: the list people look at most.
      `CREATE INDEX ${t}_by_assignee ON ${t} (organization_id, (cells->>'assigneeUserId'), (cells->>'status'), ((cells->>'dueAt') COLLATE "C"))`,
    ],
  },
  toRow: (state: TaskState): StoredTask | undefined =>
    state.life === 'live'
      ? { id: state.taskId, organization_id: state.organizationId, cells: taskView(state) }
      : undefined,
  fromRow: (row: StoredTask): TaskState => {
    const { id, ...rest } = row.cells;
    return { ...rest, life: 'live', taskId: id, organizationId: row.organization_id };
  },
});
