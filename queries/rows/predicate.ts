import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { type FilterObject, FilterObjectSchema } from '../../src/domain/columns/filter-object.ts';
import { type RunCondition, runConditionBounds } from '../../src/domain/columns/run-condition.ts';
import { invalidInput } from '../../src/domain/rows/access.ts';
import type { RowColumn } from '../../src/domain/rows/cells.ts';
import { checkReferences } from '../../src/domain/rows/condition/check.ts';
import { selectedSql } from '../../src/domain/rows/condition/key-conditions.ts';
import { filterAsCondition, prepareCondition, resolverFor } from '../../src/domain/rows/condition/prepare.ts';
import type { SqlParams } from '../../src/domain/rows/sql-params.ts';
import { formatPath } from '../../src/errors.ts';

/** `filter` of a list's query string: a FilterObject as URL-encoded JSON, reported at `querystring.filter`. */
export function filterFromQuery(text: string | undefined): FilterObject | undefined {
  if (text === undefined) return undefined;
  const at = 'querystring.filter';
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalidInput('querystring', [
      { path: at, message: 'not JSON: send a FilterObject as URL-encoded JSON' },
    ]);
  }
  const parsed = FilterObjectSchema.safeParse(json);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => ({
      path: formatPath(['querystring', 'filter', ...i.path]),
      message: i.message,
    }));
    throw invalidInput('querystring', errors);
  }
  return parsed.data;
}

/**
 * A filter or a condition (at most one) as SQL on the row `r` that is true for the rows it selects
 * (selectedSql: the condition, and what it implies of indexed keys), after checking that it names
 * columns of the table; `where` the request carried it. Undefined: every row.
 */
export function rowPredicate(
  columns: readonly RowColumn[],
  predicate: { filter?: FilterObject; condition?: RunCondition },
  where: 'querystring' | 'body',
): ((params: SqlParams) => string) | undefined {
  const { filter, condition } = predicate;
  const prefix = where === 'body' ? [] : [where];
  const checked = filter
    ? checkReferences([...prefix, 'filter'], columns, { filter })
    : condition
      ? checkReferences([...prefix, 'condition'], columns, { condition })
      : [];
  if (checked.length > 0) throw invalidInput(where, checked);
  const node = filter ? filterAsCondition(filter) : condition;
  if (!node) return undefined;
  const prepared = prepareCondition(node, resolverFor(columns));
  return (params) => selectedSql(prepared, params);
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** preValidation: a body's `condition` is bounded (depth, nodes) before the recursive schema walks it. */
export async function boundCondition(request: FastifyRequest): Promise<void> {
  const node = isObject(request.body) ? request.body.condition : undefined;
  const message = node === undefined || node === null ? undefined : runConditionBounds(node);
  if (message) throw invalidInput('body', [{ path: 'condition', message }]);
}

/** A body carries a filter or a condition, not both. */
export const oneOfFilterOrCondition = <T extends { filter?: unknown; condition?: unknown }>(
  schema: z.ZodType<T>,
) =>
  schema.refine((body) => body.filter === undefined || body.condition === undefined, {
    message: 'send filter or condition, not both',
    path: ['condition'],
  });
