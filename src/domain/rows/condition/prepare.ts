import type { FilterObject } from '../../columns/filter-object.ts';
import { normalizeFilterMode } from '../../columns/filter-object.ts';
import { parseJsonPath } from '../../columns/json-path.ts';
import { isIsoDate, type Operator } from '../../columns/operators.ts';
import type { MissingPolicy, RunCondition } from '../../columns/run-condition.ts';
import { normalizeDate, type RowColumn } from '../cells.ts';
import { foldCase } from './values.ts';

/** Three-valued: true, false, or unknown (null), as SQL's boolean. */
export type Truth = boolean | null;

/** The values a leaf compares with, each in the form both evaluators compare. */
export interface LeafArgs {
  /** Folded strings (dates of a date column normalised first). */
  strings: string[];
  numbers: number[];
  booleans: boolean[];
  /** Dates (and ranges) as stored text, UTC. */
  dates: string[];
}

export type Prepared =
  /** A leaf whose column no longer exists: its value is missing, so its missingPolicy decides. */
  | { type: 'constant'; value: Truth }
  | {
      type: 'leaf';
      columnId: string;
      /** The column's type: every stored cell of it holds a value of that type (checked on write). */
      dataType: RowColumn['dataType'];
      /** Steps inside a JSON cell; undefined: the cell itself; null: a path that resolves nothing. */
      path: string[] | undefined | null;
      operator: Operator;
      missing: Truth;
      args: LeafArgs;
    }
  | { type: 'all' | 'any'; children: Prepared[]; unknownAs: Truth }
  | { type: 'not'; child: Prepared; unknownAs: Truth };

export const policyTruth = (policy: MissingPolicy | undefined): Truth =>
  policy === 'true' ? true : policy === 'false' ? false : null;

function argsOf(values: unknown[], column: RowColumn, path: boolean, operator: Operator): LeafArgs {
  const args: LeafArgs = { strings: [], numbers: [], booleans: [], dates: [] };
  const dateOperator = operator === 'before' || operator === 'after' || operator === 'dateBetween';
  for (const value of values) {
    if (dateOperator) {
      if (typeof value === 'string' && isIsoDate(value)) args.dates.push(normalizeDate(value));
    } else if (typeof value === 'string') {
      // A date column holds instants: equals and in compare them as such, whatever form the value has.
      const instant = column.dataType === 'date' && !path && isIsoDate(value);
      args.strings.push(foldCase(instant ? normalizeDate(value) : value));
    } else if (typeof value === 'number') args.numbers.push(value);
    else if (typeof value === 'boolean') args.booleans.push(value);
  }
  return args;
}

/** Finds a leaf's column among the table's current columns (undefined: it is gone). */
export type ColumnResolver = (ref: { columnKey?: string; columnId?: string }) => RowColumn | undefined;

export function resolverFor(columns: readonly RowColumn[]): ColumnResolver {
  const byId = new Map(columns.map((c) => [c.id, c]));
  const byKey = new Map(columns.map((c) => [c.key, c]));
  return ({ columnId, columnKey }) => (columnId !== undefined ? byId.get(columnId) : byKey.get(columnKey!));
}

/**
 * A run condition made ready to evaluate against the table's current columns: values folded and
 * normalised once, columns resolved to the ids cells are stored under. Nesting was bounded by the
 * schema (runConditionBounds), so recursion is safe here.
 */
export function prepareCondition(node: RunCondition, resolve: ColumnResolver): Prepared {
  if (node.type === 'condition') {
    const missing = policyTruth(node.missingPolicy);
    const column = resolve(node);
    if (!column) {
      // isEmpty / isNotEmpty test missingness itself; every other operator takes the policy.
      const value = node.operator === 'isEmpty' ? true : node.operator === 'isNotEmpty' ? false : missing;
      return { type: 'constant', value };
    }
    const path = node.jsonPath === undefined ? undefined : (parseJsonPath(node.jsonPath) ?? null);
    const values = Array.isArray(node.value)
      ? node.value
      : [node.value, node.value2].filter((v) => v !== undefined);
    return {
      type: 'leaf',
      columnId: column.id,
      dataType: column.dataType,
      path,
      operator: node.operator,
      missing,
      args: argsOf(values, column, path !== undefined, node.operator),
    };
  }
  const unknownAs = policyTruth(node.missingPolicy);
  if (node.type === 'not')
    return { type: 'not', child: prepareCondition(node.children[0]!, resolve), unknownAs };
  return { type: node.type, children: node.children.map((c) => prepareCondition(c, resolve)), unknownAs };
}

/** A FilterObject is a run condition whose rules are leaves with missingPolicy false (AND: all, OR: any). */
export function filterAsCondition(filter: FilterObject): RunCondition {
  return {
    type: normalizeFilterMode(filter.mode) === 'AND' ? 'all' : 'any',
    children: filter.filters.map((rule) => ({
      type: 'condition',
      columnKey: rule.columnKey,
      operator: rule.operator,
      missingPolicy: 'false',
      ...(rule.value === undefined ? {} : { value: rule.value }),
    })),
  };
}
