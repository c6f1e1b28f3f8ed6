import { validatorCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type StoredTask, TASKS } from '../../projections/tasks/tasks.ts';
import { FilterObjectSchema } from '../../src/domain/columns/filter-object.ts';
import { RunConditionSchema } from '../../src/domain/columns/run-condition.ts';
import { invalidInput } from '../../src/domain/rows/access.ts';
import { checkReferences } from '../../src/domain/rows/condition/check.ts';
import type { SqlParams } from '../../src/domain/rows/sql-params.ts';
import { isTaskId, readableTask } from '../../src/domain/tasks/access.ts';
import { MAX_TASK_PAGE, TaskParams, TaskSchema } from '../../src/domain/tasks/schemas.ts';
import { principalOf } from '../../src/http/access-hook.ts';
import { pageOf } from '../../src/http/pagination.ts';
import type { RouteModule } from '../../src/http/routes.ts';
import { boundCondition, oneOfFilterOrCondition, rowPredicate } from '../rows/predicate.ts';
import { keysetQuery, nextCursorOf, type PageRequest, parseSort } from '../rows/row-page.ts';
import { indexedConditions } from './indexed-conditions.ts';
import { memoize } from './memo.ts';
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
function compileTaskQuery(organizationId: string, body: z.output<typeof QueryTasksBody>) {
  const indexed = indexedConditions(body.filter);
  // The whole filter is checked first, so that a bad rule is reported where the client sent it; the
  // evaluator then compiles only the rules no index condition replaces.
  const checked = body.filter ? checkReferences(['filter'], TASK_FIELDS, { filter: body.filter }) : [];
  if (checked.length > 0) throw invalidInput('body', checked);
  const page: PageRequest = {
    limit: body.limit,
    cursor: body.cursor,
    sort: parseSort(body.sort, TASK_FIELDS_BY_KEY, 'sort'),
    cursorPath: 'cursor',
    where: rowPredicate(TASK_FIELDS, { filter: indexed.rest, condition: body.condition }, 'body'),
  };
  const scope = (params: SqlParams) =>
    [`r.organization_id = ${params.add(organizationId)}`, ...indexed.conditions(params)].join(' AND ');
  return { page, ...keysetQuery({ fields: 'r.id, r.cells', table: TASKS, scope }, page) };
}

/** The longest request (organization and body, as JSON) whose statement or validation is remembered. */
const MAX_REMEMBERED = 4096;

/**
 * The statement, remembered for the most recent organizations and bodies: people and dashboards send
 * the same few queries again and again, and compiling one (checks, the evaluator's SQL, the index
 * conditions) was a good part of the request's processor time (docs/benchmarks.md, Tasks). A pure
 * function of its input: the task fields are the same for every organization, and the organization is
 * part of the key.
 */
const rememberedTaskQuery = memoize(
  ({ organizationId, body }: { organizationId: string; body: z.output<typeof QueryTasksBody> }) =>
    compileTaskQuery(organizationId, body),
  { entries: 512, maxKeyLength: MAX_REMEMBERED },
);

export const taskQuery = (organizationId: string, body: z.output<typeof QueryTasksBody>) =>
  rememberedTaskQuery({ organizationId, body });

/**
 * The body's validation, remembered per body for the same reason (only bodies that pass: a refused
 * one is answered from scratch each time); the headers validate as on every route.
 */
const rememberingBodyValidator = (route: {
  schema: unknown;
  method: string;
  url: string;
  httpPart?: string;
}) => {
  const validate = validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
  if (route.httpPart !== 'body') return validate;
  return memoize((data: unknown) => validate(data), {
    entries: 512,
    maxKeyLength: MAX_REMEMBERED,
    keep: (result) => !(result as { error?: unknown }).error,
  });
};

/**
 * POST /api/tasks/query: the organization's tasks that a filter or condition selects (the rows
 * evaluator, compiled to the same SQL), sorted by task fields, a page at a time.
 */
export const queryTasksRoute: RouteModule = (app, deps) => {
  app.post(
    '/api/tasks/query',
    {
      config: { access: 'tasks:read' },
      preValidation: boundCondition,
      validatorCompiler: rememberingBodyValidator,
      schema: {
        operationId: 'queryTasks',
        tags: ['tasks'],
        summary: 'List the tasks a filter or condition selects',
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
      schema: {
        operationId: 'getTask',
        tags: ['tasks'],
        summary: 'Get a task',
        params: TaskParams,
        response: { 200: TaskSchema },
      },
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
