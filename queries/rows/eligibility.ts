import type { Column } from '../../src/domain/columns/fields.ts';
import type { RunCondition } from '../../src/domain/columns/run-condition.ts';
import { selectedSql } from '../../src/domain/rows/condition/key-conditions.ts';
import { prepareCondition, resolverFor } from '../../src/domain/rows/condition/prepare.ts';
import { conditionSql } from '../../src/domain/rows/condition/sql.ts';
import { isRowId } from '../../src/domain/rows/ids.ts';
import { SqlParams } from '../../src/domain/rows/sql-params.ts';
import { rowPredicate } from './predicate.ts';
import type { RunScope } from './run-scope.ts';

/**
 * Which rows a run of `column` takes, as SQL over the rows read model (`r`): the estimate counts them
 * and a run lists them, from this one definition. `inScope`: the rows the scope names (`all`: when the
 * scope is every row of the table); `filled`: those onlyEmpty leaves out (their cell holds a value;
 * FALSE without onlyEmpty); `eligible`: true for the rows the column's runCondition selects (TRUE
 * without one), with the conditions on indexed keys it implies, so that an index can find them.
 */
export function eligibility(
  columns: readonly Column[],
  column: Column,
  tableId: string,
  scope: RunScope,
): { params: SqlParams; inScope: string; all: boolean; filled: string; eligible: string } {
  const params = new SqlParams();
  const inScope = [`r.table_id = ${params.add(tableId)}`];
  const where =
    scope.scope === 'filtered' ? rowPredicate(columns, { filter: scope.filter }, 'body') : undefined;
  if (where) inScope.push(where(params));
  if (scope.scope === 'selected')
    inScope.push(`r.id = ANY(${params.add([...new Set(scope.rowIds)].filter(isRowId), 'text[]')})`);
  const resolve = resolverFor(columns);
  const filled = scope.onlyEmpty
    ? conditionSql(
        prepareCondition(
          { type: 'condition', columnId: column.id, operator: 'isNotEmpty', missingPolicy: 'unknown' },
          resolve,
        ),
        params,
      )
    : 'FALSE';
  const runCondition = column.config.runCondition as RunCondition | undefined;
  const eligible = runCondition ? selectedSql(prepareCondition(runCondition, resolve), params) : 'TRUE';
  return { params, inScope: inScope.join(' AND '), all: scope.scope === 'all', filled, eligible };
}
