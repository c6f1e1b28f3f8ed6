import { columnKey, leftChars, TEXT_KEY_CHARS } from '../keys.ts';
import { SqlParams } from '../sql-params.ts';
import type { Prepared } from './prepare.ts';
import { conditionSql } from './sql.ts';

type Leaf = Extract<Prepared, { type: 'leaf' }>;

const TEXT_TYPES = new Set(['text', 'url', 'email']);
const COMPARE = { greaterThan: '>', greaterThanOrEqual: '>=', lessThan: '<', lessThanOrEqual: '<=' } as const;

/**
 * What a leaf being TRUE says about its column's key (src/domain/rows/keys.ts), as a condition an
 * index of that key serves; undefined when it says nothing an index could use. Only leaves on a typed
 * cell itself (no jsonPath, not JSON) whose missingPolicy is not true: such a leaf is TRUE only for a
 * present value that passes its test (conditionSql's typed form), so:
 * - equals / in on text, url, email: the folded value is one of the folded arguments, so its key (the
 *   first TEXT_KEY_CHARS characters of it) is one of theirs (an empty argument matches nothing present);
 * - on a number: the number compares so with the arguments; on a boolean: it is one of them;
 * - before / after / dateBetween on a date: the stored text compares so with the (24-character)
 *   arguments, and so does its key, which is that text (or its first 64 characters: still below an
 *   argument it was below, and at least any argument it was above).
 * Date equality is left out: it compares the folded text, which an index of the stored text does not
 * hold.
 */
function leafKeyCondition(leaf: Leaf, params: SqlParams, row: string): string | undefined {
  const { dataType, operator, args } = leaf;
  if (leaf.path !== undefined || dataType === 'json' || leaf.missing === true) return undefined;
  const key = columnKey(dataType, leaf.columnId, `${row}.cells`);
  const equality = operator === 'equals' || operator === 'in';
  if (TEXT_TYPES.has(dataType)) {
    if (!equality || args.strings.length === 0) return undefined;
    const keys = [...new Set(args.strings.filter((s) => s !== '').map((s) => leftChars(s, TEXT_KEY_CHARS)))];
    return keys.length === 0 ? 'FALSE' : `${key} = ANY(${params.add(keys, 'text[]')})`;
  }
  if (dataType === 'number') {
    if (equality)
      return args.numbers.length === 0 ? undefined : `${key} = ANY(${params.add(args.numbers, 'numeric[]')})`;
    if (operator === 'between')
      return `${key} BETWEEN ${params.add(args.numbers[0], 'numeric')} AND ${params.add(args.numbers[1], 'numeric')}`;
    const op = COMPARE[operator as keyof typeof COMPARE];
    return op ? `${key} ${op} ${params.add(args.numbers[0], 'numeric')}` : undefined;
  }
  if (dataType === 'boolean') {
    if (equality)
      return args.booleans.length === 0
        ? undefined
        : `${key} = ANY(${params.add(args.booleans, 'boolean[]')})`;
    if (operator === 'isTrue') return `${key} = TRUE`;
    if (operator === 'isFalse') return `${key} = FALSE`;
    return undefined;
  }
  if (dataType === 'date') {
    const date = (i: number) => params.add(args.dates[i], 'text');
    if (operator === 'before') return `${key} < ${date(0)}`;
    if (operator === 'after') return `${key} >= ${date(0)}`;
    if (operator === 'dateBetween') return `${key} BETWEEN ${date(0)} AND ${date(1)}`;
  }
  return undefined;
}

/**
 * Conditions on indexed keys that a prepared condition implies wherever it is TRUE: an `all` implies
 * what each of its children does, an `any` what one of them does (when every child implies something),
 * unless the group's own policy makes an unknown TRUE. Undefined when nothing is implied. Added beside
 * the condition they change no answer (the property test holds them to that) and let PostgreSQL find
 * the rows through an index instead of reading the whole table.
 */
export function keyConditions(node: Prepared, params: SqlParams, row = 'r'): string | undefined {
  switch (node.type) {
    case 'leaf':
      return leafKeyCondition(node, params, row);
    case 'all': {
      if (node.unknownAs === true) return undefined;
      const parts = node.children.flatMap((c) => keyConditions(c, params, row) ?? []);
      return parts.length === 0 ? undefined : parts.length === 1 ? parts[0] : `(${parts.join(' AND ')})`;
    }
    case 'any': {
      if (node.unknownAs === true || node.children.length === 0) return undefined;
      // Tried apart first: a child's parameters must not stay behind when a sibling implies nothing.
      if (node.children.some((c) => keyConditions(c, new SqlParams(), row) === undefined)) return undefined;
      const parts = node.children.map((c) => keyConditions(c, params, row)!);
      return parts.length === 1 ? parts[0] : `(${parts.join(' OR ')})`;
    }
    default:
      return undefined;
  }
}

/**
 * A leaf's key condition when it is true exactly where the leaf is (its typed form, conditionSql), so
 * that it can stand for the leaf: a number's comparisons, ranges and equality, a boolean's, and a
 * date's before / after / between (the stored text compares with a 24-character argument as its first
 * 64 characters do; an empty text, which the typed form takes as missing, is kept out). Text equality
 * compares the first TEXT_KEY_CHARS characters only, so it never stands for its leaf.
 */
function exactKeyCondition(leaf: Leaf, params: SqlParams, row: string): string | undefined {
  const { dataType, operator, args } = leaf;
  if (leaf.path !== undefined || leaf.missing === true) return undefined;
  const key = () => columnKey(dataType, leaf.columnId, `${row}.cells`);
  const equality = operator === 'equals' || operator === 'in';
  if (dataType === 'number') {
    if (equality)
      return args.numbers.length === 0
        ? undefined
        : `${key()} = ANY(${params.add(args.numbers, 'numeric[]')})`;
    if (operator === 'between')
      return `${key()} BETWEEN ${params.add(args.numbers[0], 'numeric')} AND ${params.add(args.numbers[1], 'numeric')}`;
    const op = COMPARE[operator as keyof typeof COMPARE];
    return op ? `${key()} ${op} ${params.add(args.numbers[0], 'numeric')}` : undefined;
  }
  if (dataType === 'boolean') {
    if (equality)
      return args.booleans.length === 0
        ? undefined
        : `${key()} = ANY(${params.add(args.booleans, 'boolean[]')})`;
    if (operator === 'isTrue') return `${key()} = TRUE`;
    if (operator === 'isFalse') return `${key()} = FALSE`;
    return undefined;
  }
  if (dataType === 'date') {
    const date = (i: number) => params.add(args.dates[i], 'text');
    if (operator === 'before') return `(${key()} < ${date(0)} AND ${key()} <> '')`;
    if (operator === 'after') return `${key()} > ${date(0)}`;
    if (operator === 'dateBetween') return `${key()} BETWEEN ${date(0)} AND ${date(1)}`;
  }
  return undefined;
}

/**
 * The rows a prepared condition selects (it is TRUE), as SQL over the row alias `row`: the condition
 * in three-valued logic (conditionSql) and the key conditions it implies, for the indexes. The
 * children of a top-level `all` (whose policy does not turn an unknown into true) are selected one by
 * one, since the group is true exactly where each child is: a child whose key condition is exact is
 * tested by it alone. Tested twice, a rule would count twice in PostgreSQL's estimate of the rows
 * selected, and the estimate, too low, would choose a plan that reads every match and sorts them
 * over one that walks the sort's index (measured: 110 ms against 17 ms for a page of a 10-rule filter
 * over 100,000 rows).
 */
export function selectedSql(node: Prepared, params: SqlParams, row = 'r'): string {
  const parts =
    node.type === 'all' && node.unknownAs !== true && node.children.length > 0 ? node.children : [node];
  return parts
    .map((part) => {
      const exact = part.type === 'leaf' ? exactKeyCondition(part, params, row) : undefined;
      if (exact !== undefined) return exact;
      const sql = `(${conditionSql(part, params, row)}) IS TRUE`;
      const keys = keyConditions(part, params, row);
      return keys === undefined ? sql : `${sql} AND ${keys}`;
    })
    .join(' AND ');
}
