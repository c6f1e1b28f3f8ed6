import fc from 'fast-check';
import { OPERATOR_RULES, type Operator } from '../../src/domain/columns/operators.ts';

/** The values random conditions draw from: what each kind of operator value is made of. */
export interface ValuePools {
  scalar: fc.Arbitrary<unknown>;
  string: fc.Arbitrary<string>;
  number: fc.Arbitrary<number>;
  date: fc.Arbitrary<string>;
}

const ordered = <T>(arb: fc.Arbitrary<T>, key: (v: T) => number) =>
  fc.tuple(arb, arb).map(([x, y]) => (key(x) <= key(y) ? [x, y] : [y, x]) as [T, T]);

/** The instant of an ISO date as a condition reads it (a plain date is midnight UTC). */
const instant = (date: string) => Date.parse(/T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(date) ? `${date}Z` : date);

/** value/value2 that satisfy the operator's rule (absent keys for a valueless one). */
export function operatorValues(
  operator: Operator,
  pools: ValuePools,
): fc.Arbitrary<{ value?: unknown; value2?: unknown }> {
  switch (OPERATOR_RULES[operator]) {
    case 'none':
      return fc.constant({});
    case 'scalar':
      return pools.scalar.map((value) => ({ value }));
    case 'string':
      return pools.string.map((value) => ({ value }));
    case 'number':
      return pools.number.map((value) => ({ value }));
    case 'numberRange':
      return ordered(pools.number, (n) => n).map(([value, value2]) => ({ value, value2 }));
    case 'list':
      return fc.array(pools.scalar, { minLength: 1, maxLength: 5 }).map((value) => ({ value }));
    case 'date':
      return pools.date.map((value) => ({ value }));
    case 'dateRange':
      return ordered(pools.date, instant).map(([value, value2]) => ({ value, value2 }));
  }
}
