import { isCalendarDay } from '../../calendar.ts';

/**
 * The operators of run conditions (and of per-request filters), each with the rule its `value` and
 * `value2` follow. The same table feeds validation and the OpenAPI document, so they cannot drift.
 */
export const VALUE_RULES = {
  none: 'takes neither value nor value2',
  scalar: 'value: a string, number or boolean; no value2',
  string: 'value: a string; no value2',
  number: 'value: a number; no value2',
  numberRange: 'value and value2: numbers with value <= value2',
  list: 'value: a non-empty array (at most 1000) of strings, numbers or booleans; no value2',
  date: 'value: an ISO 8601 date or date-time; no value2',
  dateRange: 'value and value2: ISO 8601 dates or date-times with value <= value2',
} as const;

export type ValueRule = keyof typeof VALUE_RULES;

export const OPERATOR_RULES = {
  equals: 'scalar',
  notEquals: 'scalar',
  contains: 'string',
  notContains: 'string',
  startsWith: 'string',
  endsWith: 'string',
  greaterThan: 'number',
  greaterThanOrEqual: 'number',
  lessThan: 'number',
  lessThanOrEqual: 'number',
  between: 'numberRange',
  in: 'list',
  notIn: 'list',
  before: 'date',
  after: 'date',
  dateBetween: 'dateRange',
  isEmpty: 'none',
  isNotEmpty: 'none',
  isTrue: 'none',
  isFalse: 'none',
} as const satisfies Record<string, ValueRule>;

export type Operator = keyof typeof OPERATOR_RULES;
export const OPERATORS = Object.keys(OPERATOR_RULES) as [Operator, ...Operator[]];

/** A FilterObject rule carries at most one scalar value, so only operators that fit it are allowed there. */
export const FILTER_OPERATORS = OPERATORS.filter((op) =>
  (['none', 'scalar', 'string', 'number', 'date'] as ValueRule[]).includes(OPERATOR_RULES[op]),
) as [Operator, ...Operator[]];

export const MAX_LIST_VALUES = 1000;

/** A day, or a time of day (hours 00-23, minutes and seconds 00-59) with an optional offset (up to ±23:59). */
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ]([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?)?$/;

// What a stored date may be: `toISOString()` writes a year outside these as `+010000` or `-000001`, whose
// text no longer sorts as time does.
const FIRST_INSTANT = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The instant of an ISO date or date-time, as stored: a date-time without an offset is read as UTC,
 * never in the server's own time zone. NaN for text Date.parse cannot read.
 */
export function utcInstant(value: string): number {
  let text = value.replace(' ', 'T');
  if (/T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/.test(text)) text += 'Z';
  return Date.parse(text);
}

/**
 * An ISO 8601 date or date-time naming a real moment: a day the calendar has and a time on the clock
 * (Date.parse rolls 30 February and 24:00 over to the next day), stored as a year 0000-9999 in UTC.
 */
export const isIsoDate = (v: unknown): v is string => {
  if (typeof v !== 'string') return false;
  const match = ISO_DATE.exec(v);
  if (!match || !isCalendarDay(Number(match[1]), Number(match[2]), Number(match[3]))) return false;
  const instant = utcInstant(v);
  return instant >= FIRST_INSTANT && instant <= LAST_INSTANT;
};

const isScalar = (v: unknown) =>
  typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

export interface ValueIssue {
  field: 'value' | 'value2';
  message: string;
}

/**
 * What each operator decides about a value that is present (a missing one takes the leaf's
 * missingPolicy, except for isEmpty and isNotEmpty). src/domain/rows/condition/ implements exactly this,
 * in memory and in SQL; docs/tables-and-columns.md says it at length.
 */
export const OPERATOR_MEANINGS: Record<Operator, string> = {
  equals: 'the same string (case-insensitively), number or boolean; on a date column, the same instant',
  notEquals: 'not equals',
  contains: 'a string containing value, case-insensitively',
  notContains: 'not contains (true for a value that is not a string)',
  startsWith: 'a string starting with value, case-insensitively',
  endsWith: 'a string ending with value, case-insensitively',
  greaterThan: 'a number > value',
  greaterThanOrEqual: 'a number >= value',
  lessThan: 'a number < value',
  lessThanOrEqual: 'a number <= value',
  between: 'a number with value <= it <= value2',
  in: 'equals one of the values',
  notIn: 'equals none of the values',
  before: 'a date earlier than value (instants)',
  after: 'a date later than value (instants)',
  dateBetween: 'a date from value to value2, both included (instants)',
  isEmpty: 'the value is missing (absent, null, "", [] or {}); missingPolicy does not apply',
  isNotEmpty: 'the value is present; missingPolicy does not apply',
  isTrue: 'the boolean true',
  isFalse: 'the boolean false',
};

/** Markdown-ish list of every operator, what it means and its rule, for the OpenAPI description. */
export function describeOperators(operators: readonly Operator[] = OPERATORS): string {
  return operators
    .map((op) => `${op} (${OPERATOR_MEANINGS[op]}): ${VALUE_RULES[OPERATOR_RULES[op]]}`)
    .join('; ');
}

/**
 * Checks `value`/`value2` of a node against its operator. A key that is present counts as carried,
 * even when it holds null: a valueless operator must not carry it at all.
 */
export function checkOperatorValues(operator: string, node: Record<string, unknown>): ValueIssue[] {
  const rule: ValueRule | undefined = OPERATOR_RULES[operator as Operator];
  if (!rule) return [];
  const issues: ValueIssue[] = [];
  const has = (k: 'value' | 'value2') => Object.hasOwn(node, k) && node[k] !== undefined;
  const refuse = (field: 'value' | 'value2', message: string) => issues.push({ field, message });
  const { value, value2 } = node;
  const pair = rule === 'numberRange' || rule === 'dateRange';

  if (rule === 'none') {
    if (has('value')) refuse('value', `${operator} takes no value`);
    if (has('value2')) refuse('value2', `${operator} takes no value2`);
    return issues;
  }
  if (!has('value')) refuse('value', `${operator} requires value`);
  if (pair && !has('value2')) refuse('value2', `${operator} requires value2`);
  if (!pair && has('value2')) refuse('value2', `${operator} takes no value2`);

  const check = (field: 'value' | 'value2', v: unknown) => {
    if (v === undefined) return;
    switch (rule) {
      case 'scalar':
        if (!isScalar(v)) refuse(field, `${operator} compares with a string, number or boolean`);
        break;
      case 'string':
        if (typeof v !== 'string') refuse(field, `${operator} needs a string`);
        break;
      case 'number':
      case 'numberRange':
        if (typeof v !== 'number' || !Number.isFinite(v)) refuse(field, `${operator} needs a number`);
        break;
      case 'date':
      case 'dateRange':
        if (!isIsoDate(v)) refuse(field, `${operator} needs an ISO 8601 date`);
        break;
      case 'list':
        if (!Array.isArray(v)) refuse(field, `${operator} needs an array`);
        else if (v.length === 0) refuse(field, `${operator} needs at least one value`);
        else if (v.length > MAX_LIST_VALUES)
          refuse(field, `${operator} takes at most ${MAX_LIST_VALUES} values`);
        else if (!v.every(isScalar)) refuse(field, `${operator} takes strings, numbers or booleans`);
        break;
    }
  };
  check('value', value);
  if (pair) check('value2', value2);
  if (issues.length === 0 && pair) {
    const low = rule === 'dateRange' ? utcInstant(value as string) : (value as number);
    const high = rule === 'dateRange' ? utcInstant(value2 as string) : (value2 as number);
    if (low > high) refuse('value2', `${operator} needs value2 >= value`);
  }
  return issues;
}
