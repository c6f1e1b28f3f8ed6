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
