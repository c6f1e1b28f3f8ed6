import { type FieldError, formatPath } from '../../../errors.ts';
import { checkRef } from '../../columns/config/index.ts';
import type { FilterObject } from '../../columns/filter-object.ts';
import type { ColumnMember, ColumnRef } from '../../columns/references.ts';
import { type RunCondition, runConditionRefs } from '../../columns/run-condition.ts';

/**
 * A filter or condition a request sends (a list, a query, an estimate) must name columns the table has
 * now, by the rules a saved run condition follows: 400 naming each path otherwise.
 */
export function checkReferences(
  at: PropertyKey[],
  columns: readonly ColumnMember[],
  predicate: { filter: FilterObject } | { condition: RunCondition },
): FieldError[] {
  const refs: ColumnRef[] =
    'filter' in predicate
      ? predicate.filter.filters.map((rule, i) => ({
          path: ['filters', i, 'columnKey'],
          key: rule.columnKey,
          mustExist: true,
        }))
      : runConditionRefs(predicate.condition, []);
  return refs.flatMap((ref) => {
    const issue = checkRef(ref, columns);
    return issue ? [{ path: formatPath([...at, ...issue.path]), message: issue.message }] : [];
  });
}
