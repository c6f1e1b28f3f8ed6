import { z } from 'zod';
import { type StoredTask, TASKS } from '../../projections/tasks/tasks.ts';
import { FilterObjectSchema } from '../../src/domain/columns/filter-object.ts';
import { RunConditionSchema } from '../../src/domain/columns/run-condition.ts';
import type { SqlParams } from '../../src/domain/rows/sql-params.ts';
import { isTaskId, readableTask } from '../../src/domain/tasks/access.ts';
import { MAX_TASK_PAGE, TaskParams, TaskSchema } from '../../src/domain/tasks/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import type { RouteModule } from '../../src/http/app.ts';
import { IdempotencyHeaders, idempotency } from '../../src/http/idempotency.ts';
import { pageOf } from '../../src/http/pagination.ts';
import { boundCondition, oneOfFilterOrCondition, rowPredicate } from '../rows/predicate.ts';
import { keysetQuery, nextCursorOf, type PageRequest, parseSort } from '../rows/row-page.ts';
import { indexedConditions } from './indexed-conditions.ts';
import { TASK_FIELDS, TASK_FIELDS_BY_KEY } from './task-fields.ts';

export const QueryTasksBody = oneOfFilterOrCondition(
  z.strictObject({
    limit: z.number().int().min(1).max(MAX_TASK_PAGE).default(100),
    cursor: z.string().max(4000).optional().describe('nextCursor of the previous page'),
    sort: z
      .string()
      .max(1000)
      .optional()
      .describe('Task fields, comma-separated, `-` for descending (`dueAt,-createdAt`); ties by id'),
    filter: FilterObjectSchema.optional().describe('As on rows; a columnKey names a task field'),
    condition: RunConditionSchema.optional().describe('A condition tree as on rows, over task fields'),
  }),
);

/** The statement of one page of the query (the benchmark explains the same). */
export function taskQuery(organizationId: string, body: z.output<typeof QueryTasksBody>) {
  const page: PageRequest = {
    limit: body.limit,
    cursor: body.cursor,
    sort: parseSort(body.sort, TASK_FIELDS_BY_KEY, 'sort'),
    cursorPath: 'cursor',
    where: rowPredicate(TASK_FIELDS, body, 'body'),
  };
  const scope = (params: SqlParams) =>
    [`r.organization_id = ${params.add(organizationId)}`, ...indexedConditions(body.filter, params)].join(
      ' AND ',
    );
  return { page, ...keysetQuery({ fields: 'r.id, r.cells', table: TASKS, scope }, page) };
}

/**
 * POST /api/tasks/query: the organization's tasks that a filter or condition selects (the rows
 * evaluator, compiled to the same SQL), sorted by task fields, a page at a time.
 */
export const queryTasksRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tasks/query',
    {
      config: { access: 'tasks:read' },
      ...idempotency(deps),
      preValidation: boundCondition,
      schema: {
        tags: ['tasks'],
        summary: 'List the tasks a filter or condition selects',
        headers: IdempotencyHeaders,
        body: QueryTasksBody,
        response: { 200: pageOf(TaskSchema) },
      },
    },
    async (request) => {
      const body = request.body;
      const { page, text, values } = taskQuery(principalOf(request).organizationId, body);
      const { rows } = await deps.pool.query<Pick<StoredTask, 'id' | 'cells'> & Record<string, unknown>>(
        text,
        values,
      );
      return {
        data: rows.slice(0, body.limit).map((row) => row.cells),
        nextCursor: nextCursorOf(rows, page),
      };
    },
  );
};

/** GET /api/tasks/{taskId} */
export const getTaskRoute: RouteModule = (app, deps) => {
  app.get(
    '/api/tasks/:taskId',
    {
      config: { access: 'tasks:read' },
      schema: { tags: ['tasks'], summary: 'Get a task', params: TaskParams, response: { 200: TaskSchema } },
    },
    async (request) => {
      const { taskId } = request.params;
      const { rows } = isTaskId(taskId)
        ? await deps.pool.query<StoredTask>(`SELECT id, organization_id, cells FROM ${TASKS} WHERE id = $1`, [
            taskId,
          ])
        : { rows: [] };
      return readableTask(rows[0], taskId, principalOf(request)).cells;
    },
  );
};
