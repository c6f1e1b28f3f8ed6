import { type FilterObject, normalizeFilterMode } from '../../src/domain/columns/filter-object.ts';
import { isIsoDate } from '../../src/domain/columns/operators.ts';
import { normalizeDate } from '../../src/domain/rows/cells.ts';
import { foldCase } from '../../src/domain/rows/condition/values.ts';
import type { SqlParams } from '../../src/domain/rows/sql-params.ts';

/** Fields whose every stored value is lower case (enums, generated ids) or null. */
const LOWER_CASE_FIELDS = new Set(['status', 'type', 'assigneeUserId']);

/** Printable ASCII: its lower case is the same in JavaScript and PostgreSQL, and folding it twice changes nothing. */
const ASCII = /^[\x20-\x7e]+$/;

/** One rule of an AND filter as the exact condition the tasks read model's indexes serve. */
interface IndexedRule {
  /** The rule's position in the filter. */
  index: number;
  sql: (params: SqlParams) => string;
  /** The condition selects exactly what the rule selects: the evaluator need not test the rule again. */
  replaces: boolean;
}

/**
 * Conditions the tasks read model's indexes serve (projections/tasks/tasks.ts), implied by the
 * top-level rules of an AND filter. They exist because the rows evaluator's SQL is case-insensitive and
 * NULL-guarded (lower(), COALESCE), which no index serves. Each is exactly what its rule selects, on this
 * read model: `equals` on a field stored in lower case matches the stored value equal to the folded one,
 * and `before`/`after` on dueAt (always a normalised instant) is the same byte comparison the evaluator
 * makes. Where that holds whatever the stored values are, the condition replaces its rule (`replaces`),
 * so the statement tests each rule once (measured in docs/benchmarks.md, Tasks):
 * - `equals` with a non-empty ASCII value v: a row with the stored value fold(v) has lower(value) =
 *   fold(v), which the evaluator asks (an empty v matches nothing there; non-ASCII folds are left to it);
 * - `before` d: the stored text is below d and, as the evaluator's NULLIF asks, not empty;
 * - `after` d: the stored text is above d, so not empty.
 */
function indexedRules(filter: FilterObject | undefined): IndexedRule[] {
  if (!filter || (normalizeFilterMode(filter.mode) !== 'AND' && filter.filters.length > 1)) return [];
  const rules: IndexedRule[] = [];
  filter.filters.forEach((rule, index) => {
    const { columnKey, operator, value } = rule as { columnKey?: string; operator: string; value?: unknown };
    if (typeof value !== 'string' || columnKey === undefined) return;
    if (operator === 'equals' && LOWER_CASE_FIELDS.has(columnKey)) {
      const sql = (params: SqlParams) => `r.cells->>'${columnKey}' = ${params.add(foldCase(value), 'text')}`;
      rules.push({ index, sql, replaces: ASCII.test(value) });
    }
    if (columnKey === 'dueAt' && (operator === 'before' || operator === 'after') && isIsoDate(value)) {
      const due = `(r.cells->>'dueAt') COLLATE "C"`;
      const sql = (params: SqlParams) =>
        operator === 'before'
          ? `${due} < ${params.add(normalizeDate(value), 'text')} AND ${due} > ''`
          : `${due} > ${params.add(normalizeDate(value), 'text')}`;
      rules.push({ index, sql, replaces: true });
    }
  });
  return rules;
}

/**
 * The index conditions an AND filter implies, and the filter the evaluator still has to apply: the
 * rules no condition replaces (undefined when none is left, or when there was no filter).
 */
export function indexedConditions(filter: FilterObject | undefined): {
  conditions: (params: SqlParams) => string[];
  rest: FilterObject | undefined;
} {
  const rules = indexedRules(filter);
  const replaced = new Set(rules.filter((r) => r.replaces).map((r) => r.index));
  const kept = filter?.filters.filter((_, i) => !replaced.has(i)) ?? [];
  return {
    conditions: (params) => rules.map((r) => r.sql(params)),
    rest: filter && kept.length > 0 ? { ...filter, filters: kept } : undefined,
  };
}
