import { type FilterObject, normalizeFilterMode } from '../../src/domain/columns/filter-object.ts';
import { isIsoDate } from '../../src/domain/columns/operators.ts';
import { normalizeDate } from '../../src/domain/rows/cells.ts';
import { foldCase } from '../../src/domain/rows/condition/values.ts';
import type { SqlParams } from '../../src/domain/rows/sql-params.ts';

/** Fields whose every stored value is lower case (enums, generated ids) or null. */
const LOWER_CASE_FIELDS = new Set(['status', 'type', 'assigneeUserId']);

/**
 * Conditions the tasks read model's indexes serve (projections/tasks/tasks.ts), implied by the
 * top-level rules of an AND filter and added beside it; the filter itself still decides. They exist
 * because the rows evaluator's SQL is case-insensitive and NULL-guarded (lower(), COALESCE), which
 * no index serves. Each is exactly what its rule selects, on this read model: `equals` on a field
 * stored in lower case matches the stored value equal to the folded one, and `before`/`after` on
 * dueAt (always a normalised instant, never empty) is the same byte comparison the evaluator makes.
 */
export function indexedConditions(filter: FilterObject | undefined, params: SqlParams): string[] {
  if (!filter || (normalizeFilterMode(filter.mode) !== 'AND' && filter.filters.length > 1)) return [];
  const conditions: string[] = [];
  for (const rule of filter.filters) {
    const { columnKey, operator, value } = rule as { columnKey?: string; operator: string; value?: unknown };
    if (typeof value !== 'string' || columnKey === undefined) continue;
    if (operator === 'equals' && LOWER_CASE_FIELDS.has(columnKey))
      conditions.push(`r.cells->>'${columnKey}' = ${params.add(foldCase(value), 'text')}`);
    if (columnKey === 'dueAt' && (operator === 'before' || operator === 'after') && isIsoDate(value))
      conditions.push(
        `(r.cells->>'dueAt') COLLATE "C" ${operator === 'before' ? '<' : '>'} ${params.add(normalizeDate(value), 'text')}`,
      );
  }
  return conditions;
}
