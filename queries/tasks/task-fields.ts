import type { RowColumn } from '../../src/domain/rows/cells.ts';
import type { TaskView } from '../../src/domain/tasks/schemas.ts';

type Field = Exclude<keyof TaskView, 'id'> | 'id';

const TYPES: Record<Field, RowColumn['dataType']> = {
  id: 'text',
  type: 'text',
  status: 'text',
  title: 'text',
  notes: 'text',
  dueAt: 'date',
  assigneeUserId: 'text',
  leadId: 'text',
  sequenceId: 'text',
  enrollmentId: 'text',
  stepIndex: 'number',
  createdAt: 'date',
  updatedAt: 'date',
  completedAt: 'date',
  email: 'json',
};

/**
 * The task fields as the columns of a table whose cells the read model stores by field name: the rows
 * condition evaluator and sort then work on tasks unchanged (a filter's columnKey names a field).
 */
export const TASK_FIELDS: readonly RowColumn[] = Object.entries(TYPES).map(([key, dataType]) => ({
  id: key,
  key,
  kind: 'input',
  dataType,
}));

export const TASK_FIELDS_BY_KEY: ReadonlyMap<string, RowColumn> = new Map(TASK_FIELDS.map((f) => [f.key, f]));
