import type { SqlParams } from '../sql-params.ts';
import type { Prepared, Truth } from './prepare.ts';
import { DATE_ONLY, DATE_TIME_UTC, MIDNIGHT } from './values.ts';

type Leaf = Extract<Prepared, { type: 'leaf' }>;

const truth = (value: Truth) => (value === null ? 'NULL::boolean' : value ? 'TRUE' : 'FALSE');

/** isMissing (values.ts) in SQL: SQL NULL (absent, or a path that does not resolve), null, "", [], {}. */
const missing = (x: string) =>
  `(${x} IS NULL OR ${x} IN ('null'::jsonb, '""'::jsonb, '[]'::jsonb, '{}'::jsonb))`;

/** foldCase (values.ts) in SQL: Unicode's simple lower-case mapping, whatever the database's own collation. */
const folded = (x: string) => `lower((${x} #>> '{}') COLLATE pg_c_utf8)`;

/** dateText (values.ts) in SQL: the stored form, or a plain date at midnight UTC; NULL for anything else. */
const dateText = (x: string) => {
  const text = `(${x} #>> '{}')`;
  return `(CASE WHEN jsonb_typeof(${x}) = 'string' THEN CASE WHEN ${text} ~ '${DATE_ONLY.source}' THEN ${text} || '${MIDNIGHT}' WHEN ${text} ~ '${DATE_TIME_UTC.source}' THEN ${text} END END COLLATE "C")`;
};

/** A test guarded by the JSON type it applies to: false for a value of any other type, never NULL. */
const when = (x: string, type: string, test: string) =>
  `(CASE WHEN jsonb_typeof(${x}) = '${type}' THEN ${test} ELSE FALSE END)`;

/** equalsAny (evaluate.ts): a string, number or boolean among the leaf's values of that type. */
function equalsAny(x: string, leaf: Leaf, params: SqlParams): string {
  const { strings, numbers, booleans } = leaf.args;
  const branches: string[] = [];
  if (strings.length > 0)
    branches.push(`WHEN 'string' THEN ${folded(x)} = ANY(${params.add(strings, 'text[]')})`);
  if (numbers.length > 0)
    branches.push(`WHEN 'number' THEN (${x})::numeric = ANY(${params.add(numbers, 'numeric[]')})`);
  if (booleans.length > 0)
    branches.push(`WHEN 'boolean' THEN (${x})::boolean = ANY(${params.add(booleans, 'boolean[]')})`);
  return branches.length === 0 ? 'FALSE' : `(CASE jsonb_typeof(${x}) ${branches.join(' ')} ELSE FALSE END)`;
}

/** The operator on a present value (test() in evaluate.ts): TRUE or FALSE, never NULL. */
function test(x: string, leaf: Leaf, params: SqlParams): string {
  const { args } = leaf;
  const string = () => params.add(args.strings[0], 'text');
  const number = (i: number) => params.add(args.numbers[i], 'numeric');
  const date = (i: number) => params.add(args.dates[i], 'text');
  const numeric = `(${x})::numeric`;
  switch (leaf.operator) {
    case 'equals':
    case 'in':
      return equalsAny(x, leaf, params);
    case 'notEquals':
    case 'notIn':
      return `(NOT ${equalsAny(x, leaf, params)})`;
    case 'contains':
      return when(x, 'string', `strpos(${folded(x)}, ${string()}) > 0`);
    case 'notContains':
      return `(NOT ${when(x, 'string', `strpos(${folded(x)}, ${string()}) > 0`)})`;
    case 'startsWith':
      return when(x, 'string', `starts_with(${folded(x)}, ${string()})`);
    case 'endsWith': {
      const suffix = string();
      return when(x, 'string', `right(${folded(x)}, char_length(${suffix})) = ${suffix}`);
    }
    case 'greaterThan':
      return when(x, 'number', `${numeric} > ${number(0)}`);
    case 'greaterThanOrEqual':
      return when(x, 'number', `${numeric} >= ${number(0)}`);
    case 'lessThan':
      return when(x, 'number', `${numeric} < ${number(0)}`);
    case 'lessThanOrEqual':
      return when(x, 'number', `${numeric} <= ${number(0)}`);
    case 'between':
      return when(x, 'number', `${numeric} BETWEEN ${number(0)} AND ${number(1)}`);
    case 'before':
      return `COALESCE(${dateText(x)} < ${date(0)}, FALSE)`;
    case 'after':
      return `COALESCE(${dateText(x)} > ${date(0)}, FALSE)`;
    case 'dateBetween':
      return `COALESCE(${dateText(x)} BETWEEN ${date(0)} AND ${date(1)}, FALSE)`;
    case 'isTrue':
      return `(${x} = 'true'::jsonb)`;
    case 'isFalse':
      return `(${x} = 'false'::jsonb)`;
    case 'isEmpty':
      return 'FALSE';
    case 'isNotEmpty':
      return 'TRUE';
    default: {
      const never: never = leaf.operator;
      return never;
    }
  }
}

/** The leaf's value: the cell (by column id) or the value at its path inside the cell. */
function leafValue(leaf: Leaf, row: string, params: SqlParams): string {
  if (leaf.path === null) return 'NULL::jsonb';
  if (leaf.path === undefined) return `(${row}.cells -> ${params.add(leaf.columnId, 'text')})`;
  return `(${row}.cells #> ${params.add([leaf.columnId, ...leaf.path], 'text[]')})`;
}

const STRING_TYPES = new Set(['text', 'url', 'email', 'date']);
const COMPARE = { greaterThan: '>', greaterThanOrEqual: '>=', lessThan: '<', lessThanOrEqual: '<=' } as const;
const EQUALITY = new Set(['equals', 'in', 'notEquals', 'notIn']);

/** Whether a leaf has the short form of typedTest: an operator that fits its column's type. */
function hasTypedTest({ operator, dataType, args }: Leaf): boolean {
  const equality = EQUALITY.has(operator);
  if (STRING_TYPES.has(dataType)) {
    if (equality) return args.strings.length > 0;
    if (['contains', 'notContains', 'startsWith', 'endsWith'].includes(operator)) return true;
    return dataType === 'date' && ['before', 'after', 'dateBetween'].includes(operator);
  }
  if (dataType === 'number')
    return equality ? args.numbers.length > 0 : operator in COMPARE || operator === 'between';
  if (dataType === 'boolean')
    return equality ? args.booleans.length > 0 : operator === 'isTrue' || operator === 'isFalse';
  return false;
}

/**
 * A leaf on a cell itself (no jsonPath) of a typed column, in the short form that knows the cell's
 * type: a stored cell of a number column is a number, of a text column a string, and so on (values are
 * checked on write and a column's type never changes). The test is NULL exactly when the value is
 * missing, so the missingPolicy is a COALESCE; numbers and booleans alone are guarded on their JSON type
 * (typedCell), against answers older runs stored unchecked. Only for leaves that hasTypedTest accepts;
 * the others take the general form.
 */
function typedTest(leaf: Leaf, row: string, params: SqlParams): string {
  const { args, operator, dataType } = leaf;
  const any = (values: unknown[], cast: string) => `ANY(${params.add(values, `${cast}[]`)})`;
  const not = (test: string) => (operator === 'notEquals' || operator === 'notIn' ? `(NOT ${test})` : test);
  const equality = EQUALITY.has(operator);
  if (STRING_TYPES.has(dataType)) {
    const text = `NULLIF(${row}.cells->>${params.add(leaf.columnId, 'text')}, '')`;
    const folded = `lower(${text} COLLATE pg_c_utf8)`;
    const word = () => params.add(args.strings[0], 'text');
    const date = (i: number) => params.add(args.dates[i], 'text');
    // A date cell is stored in the one form dateText() takes as it is.
    const stored = `(${text} COLLATE "C")`;
    if (equality) return not(`(${folded} = ${any(args.strings, 'text')})`);
    if (operator === 'contains') return `(strpos(${folded}, ${word()}) > 0)`;
    if (operator === 'notContains') return `(NOT strpos(${folded}, ${word()}) > 0)`;
    if (operator === 'startsWith') return `starts_with(${folded}, ${word()})`;
    if (operator === 'endsWith') {
      const suffix = word();
      return `(right(${folded}, char_length(${suffix})) = ${suffix})`;
    }
    if (operator === 'before') return `(${stored} < ${date(0)})`;
    if (operator === 'after') return `(${stored} > ${date(0)})`;
    return `(${stored} BETWEEN ${date(0)} AND ${date(1)})`;
  }
  const cell = `(${row}.cells->${params.add(leaf.columnId, 'text')})`;
  if (dataType === 'number') {
    const number = typedCell(cell, 'number', 'numeric');
    const value = (i: number) => params.add(args.numbers[i], 'numeric');
    if (equality) return not(`(${number} = ${any(args.numbers, 'numeric')})`);
    if (operator === 'between') return `(${number} BETWEEN ${value(0)} AND ${value(1)})`;
    return `(${number} ${COMPARE[operator as keyof typeof COMPARE]} ${value(0)})`;
  }
  const bool = typedCell(cell, 'boolean', 'boolean');
  if (equality) return not(`(${bool} = ${any(args.booleans, 'boolean')})`);
  return operator === 'isTrue' ? bool : `(NOT ${bool})`;
}

/**
 * A typed column's cell as its SQL type, NULL (as if missing) when it holds another JSON type: values
 * are checked on write, but a run before runs checked them could store an answer of another type, and
 * a cast of it would fail the whole statement.
 */
export const typedCell = (cell: string, json: 'number' | 'boolean', sql: 'numeric' | 'boolean') =>
  `(CASE WHEN jsonb_typeof(${cell}) = '${json}' THEN (${cell})::${sql} END)`;

/** A leaf in the short form when it has one (see typedTest), its missingPolicy folded in. */
function typedLeaf(leaf: Leaf, row: string, params: SqlParams): string | undefined {
  if (leaf.path !== undefined || leaf.dataType === 'json') return undefined;
  if (leaf.operator === 'isEmpty' || leaf.operator === 'isNotEmpty') {
    const value = STRING_TYPES.has(leaf.dataType)
      ? `NULLIF(${row}.cells->>${params.add(leaf.columnId, 'text')}, '')`
      : `(${row}.cells->${params.add(leaf.columnId, 'text')})`;
    return `(${value} IS ${leaf.operator === 'isEmpty' ? '' : 'NOT '}NULL)`;
  }
  if (!hasTypedTest(leaf)) return undefined;
  const test = typedTest(leaf, row, params);
  return leaf.missing === null ? test : `COALESCE(${test}, ${truth(leaf.missing)})`;
}

/**
 * A prepared condition as a SQL boolean over the row alias `row`, in the same three-valued logic as
 * evaluate(): SQL's own NULL is unknown, and its AND, OR and NOT are Kleene's. Every value the
 * condition carries goes in as a parameter. Select rows with `(...) IS TRUE`.
 */
export function conditionSql(node: Prepared, params: SqlParams, row = 'r'): string {
  switch (node.type) {
    case 'constant':
      return truth(node.value);
    case 'leaf': {
      const typed = typedLeaf(node, row, params);
      if (typed !== undefined) return typed;
      const x = leafValue(node, row, params);
      const onMissing =
        node.operator === 'isEmpty' ? 'TRUE' : node.operator === 'isNotEmpty' ? 'FALSE' : truth(node.missing);
      return `(CASE WHEN ${missing(x)} THEN ${onMissing} ELSE ${test(x, node, params)} END)`;
    }
    case 'not':
      return unknownAs(`(NOT ${conditionSql(node.child, params, row)})`, node.unknownAs);
    case 'all':
    case 'any': {
      const parts = node.children.map((c) => conditionSql(c, params, row));
      return unknownAs(`(${parts.join(node.type === 'all' ? ' AND ' : ' OR ')})`, node.unknownAs);
    }
  }
}

const unknownAs = (sql: string, value: Truth) => (value === null ? sql : `COALESCE(${sql}, ${truth(value)})`);
