import { resolvePath } from '../../columns/json-path.ts';
import type { Prepared, Truth } from './prepare.ts';
import { dateText, foldCase, isMissing } from './values.ts';

type Leaf = Extract<Prepared, { type: 'leaf' }>;

function equalsAny(value: unknown, args: Leaf['args']): boolean {
  if (typeof value === 'string') return args.strings.includes(foldCase(value));
  if (typeof value === 'number') return args.numbers.includes(value);
  if (typeof value === 'boolean') return args.booleans.includes(value);
  return false;
}

/** A leaf's operator on a value that is present: always true or false. */
function test(leaf: Leaf, value: unknown): boolean {
  const { args } = leaf;
  const text = (check: (folded: string) => boolean) => typeof value === 'string' && check(foldCase(value));
  const number = (check: (n: number) => boolean) => typeof value === 'number' && check(value);
  const [low, high] = args.numbers as [number, number];
  const [from, to] = args.dates as [string, string];
  const word = args.strings[0]!;
  switch (leaf.operator) {
    case 'equals':
    case 'in':
      return equalsAny(value, args);
    case 'notEquals':
    case 'notIn':
      return !equalsAny(value, args);
    case 'contains':
      return text((t) => t.includes(word));
    case 'notContains':
      return !text((t) => t.includes(word));
    case 'startsWith':
      return text((t) => t.startsWith(word));
    case 'endsWith':
      return text((t) => t.endsWith(word));
    case 'greaterThan':
      return number((n) => n > low);
    case 'greaterThanOrEqual':
      return number((n) => n >= low);
    case 'lessThan':
      return number((n) => n < low);
    case 'lessThanOrEqual':
      return number((n) => n <= low);
    case 'between':
      return number((n) => n >= low && n <= high);
    case 'before':
    case 'after':
    case 'dateBetween': {
      const date = dateText(value);
      if (date === undefined) return false;
      if (leaf.operator === 'before') return date < from;
      if (leaf.operator === 'after') return date > from;
      return date >= from && date <= to;
    }
    case 'isTrue':
      return value === true;
    case 'isFalse':
      return value === false;
    case 'isEmpty':
      return false;
    case 'isNotEmpty':
      return true;
    default: {
      const never: never = leaf.operator;
      return never;
    }
  }
}

/**
 * A prepared condition on one row's cells (keyed by column id), in three-valued logic: a leaf whose
 * value is missing yields its missingPolicy (isEmpty and isNotEmpty test missingness itself); all is
 * AND, any is OR, not negates, and unknown stays unknown unless the group's own policy says otherwise.
 */
export function evaluate(node: Prepared, cells: Readonly<Record<string, unknown>>): Truth {
  switch (node.type) {
    case 'constant':
      return node.value;
    case 'leaf': {
      const cell = cells[node.columnId];
      const value =
        node.path === undefined ? cell : node.path === null ? undefined : resolvePath(cell, node.path);
      if (isMissing(value)) {
        if (node.operator === 'isEmpty') return true;
        if (node.operator === 'isNotEmpty') return false;
        return node.missing;
      }
      return test(node, value);
    }
    case 'not': {
      const inner = evaluate(node.child, cells);
      const result = inner === null ? null : !inner;
      return result === null ? node.unknownAs : result;
    }
    case 'all':
    case 'any': {
      // Kleene: for all, one false decides and an unknown outweighs true; for any, the reverse.
      const decisive = node.type === 'any';
      let unknown = false;
      for (const child of node.children) {
        const value = evaluate(child, cells);
        if (value === decisive) return decisive;
        if (value === null) unknown = true;
      }
      return unknown ? node.unknownAs : !decisive;
    }
  }
}

/** Whether a row is eligible: only when the whole condition is true (unknown is not). */
export const isEligible = (node: Prepared, cells: Readonly<Record<string, unknown>>) =>
  evaluate(node, cells) === true;
