import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateColumnConfig } from '../../../processes/runs/providers/index.ts';
import type { ConfigContext } from '../../../src/domain/columns/config/index.ts';
import { FilterObjectSchema, normalizeFilterMode } from '../../../src/domain/columns/filter-object.ts';
import {
  FILTER_OPERATORS,
  OPERATOR_RULES,
  OPERATORS,
  type Operator,
} from '../../../src/domain/columns/operators.ts';
import {
  MAX_DEPTH,
  MAX_NODES,
  RunConditionSchema,
  runConditionBounds,
} from '../../../src/domain/columns/run-condition.ts';
import { formatPath } from '../../../src/errors.ts';
import { operatorValues } from '../../support/operator-values.ts';

const test = suite('run conditions and FilterObjects: schema properties (fast-check)');

const ctx: ConfigContext = {
  organizationId: 'o1',
  columns: [
    { id: 'col_a', key: 'a', dataType: 'text' },
    { id: 'col_b', key: 'b', dataType: 'number' },
    { id: 'col_j', key: 'j', dataType: 'json' },
  ],
  tables: new Map(),
};

type Node = Record<string, unknown> & { children?: Node[] };

const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
const finite = fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e9, max: 1e9 });
const isoDate = fc
  .date({ min: new Date('1970-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
  .chain((d) => fc.constantFrom(d.toISOString(), d.toISOString().slice(0, 10)));
const valuesFor = (operator: Operator) =>
  operatorValues(operator, { scalar, string: fc.string({ maxLength: 8 }), number: finite, date: isoDate });

const target = fc.oneof(
  fc.constantFrom('a', 'b').map((columnKey) => ({ columnKey })),
  fc.constantFrom('col_a', 'col_b').map((columnId) => ({ columnId })),
  fc.constant({ columnKey: 'j', jsonPath: '$.name' }),
);

const leaf: fc.Arbitrary<Node> = fc.constantFrom(...OPERATORS).chain((operator) =>
  fc
    .tuple(target, valuesFor(operator), fc.constantFrom('unknown', 'true', 'false'))
    .map(([on, values, missingPolicy]) => ({
      type: 'condition',
      ...on,
      operator,
      missingPolicy,
      ...values,
    })),
);

const { condition: validCondition } = fc.letrec<{ condition: Node; group: Node }>((tie) => ({
  condition: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('group')),
  group: fc.oneof(
    fc.record(
      {
        type: fc.constantFrom('all', 'any'),
        children: fc.array(tie('condition'), { minLength: 1, maxLength: 4 }),
      },
      { noNullPrototype: true },
    ),
    fc.record({ type: fc.constant('not'), children: fc.tuple(tie('condition')) }, { noNullPrototype: true }),
  ) as fc.Arbitrary<Node>,
}));

/** Every node with its path from the root. */
function nodesOf(node: Node, path: (string | number)[] = []): { node: Node; path: (string | number)[] }[] {
  return [{ node, path }, ...(node.children ?? []).flatMap((c, i) => nodesOf(c, [...path, 'children', i]))];
}

/** One way to break a node; each must be refused with an error at or below that node's path. */
const MUTATIONS: ((n: Node) => void)[] = [
  (n) => {
    n.type = 'maybe';
  },
  (n) => {
    n.extra = 1;
  },
  (n) => {
    if (n.type === 'condition') delete n.missingPolicy;
    else n.children = [];
  },
  (n) => {
    if (n.type === 'condition') n.operator = 'resembles';
    else if (n.type === 'not') n.children = [...n.children!, ...n.children!];
    else n.children = 'all' as never;
  },
  (n) => {
    if (n.type !== 'condition') {
      n.children = [];
      return;
    }
    const rule = OPERATOR_RULES[n.operator as Operator];
    if (rule === 'none') n.value = 1;
    else if (rule === 'numberRange' || rule === 'dateRange') delete n.value2;
    else if (rule === 'list') n.value = 'not a list';
    else n.value2 = n.value;
  },
  (n) => {
    if (n.type === 'condition') {
      delete n.columnKey;
      delete n.columnId;
    } else delete n.children;
  },
];

const configErrors = (runCondition: unknown) => {
  const result = validateColumnConfig({ runCondition }, ctx);
  return result.ok ? [] : result.errors.map((e) => e.path);
};

test('every generated valid run condition passes the schema and the table check, unchanged', () => {
  fc.assert(
    fc.property(validCondition, (condition) => {
      const parsed = RunConditionSchema.safeParse(condition);
      assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
      assert.equal(parsed.data, condition);
      assert.equal(configErrors(condition), []);
    }),
    { numRuns: 300 },
  );
});

test('one broken node makes the condition invalid, and an error names that node (or below)', () => {
  fc.assert(
    fc.property(validCondition, fc.nat(), fc.nat(MUTATIONS.length - 1), (condition, pick, how) => {
      const broken = structuredClone(condition);
      const nodes = nodesOf(broken);
      const { node, path } = nodes[pick % nodes.length]!;
      MUTATIONS[how]!(node);
      assert.not.ok(RunConditionSchema.safeParse(broken).success);
      const at = formatPath(['config', 'runCondition', ...path]);
      const errors = configErrors(broken);
      assert.ok(
        errors.some((e) => e === at || e.startsWith(`${at}.`) || e.startsWith(`${at}[`)),
        `${JSON.stringify(errors)} should name ${at}`,
      );
    }),
    { numRuns: 300 },
  );
});

test('bounds: depth above 20 or more than 500 nodes is refused before the schema runs', () => {
  const chain = (depth: number): Node =>
    depth === 1
      ? { type: 'condition', columnKey: 'a', operator: 'isEmpty', missingPolicy: 'unknown' }
      : { type: 'not', children: [chain(depth - 1)] };
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 60 }), (depth) => {
      const refused = runConditionBounds(chain(depth)) !== undefined;
      assert.is(refused, depth > MAX_DEPTH);
      assert.is(configErrors(chain(depth)).length > 0, depth > MAX_DEPTH);
    }),
  );
  const wide = (n: number) => ({
    type: 'any',
    children: Array.from({ length: n - 1 }, () => chain(1)),
  });
  assert.is(runConditionBounds(wide(MAX_NODES)), undefined);
  assert.ok(runConditionBounds(wide(MAX_NODES + 1)));
});

const filterRule = fc.constantFrom(...FILTER_OPERATORS).chain((operator) =>
  fc.tuple(fc.constantFrom('a', 'b', 'c'), valuesFor(operator)).map(([columnKey, values]) => ({
    columnKey,
    operator,
    ...values,
  })),
);
const validFilter = fc.record(
  {
    mode: fc.constantFrom('AND', 'OR', 'and', 'or'),
    filters: fc.array(filterRule, { minLength: 1, maxLength: 6 }),
  },
  { noNullPrototype: true },
);

test('every generated valid FilterObject passes; AND/OR in either case', () => {
  fc.assert(
    fc.property(validFilter, (filter) => {
      const parsed = FilterObjectSchema.safeParse(filter);
      assert.ok(parsed.success, JSON.stringify(parsed.error?.issues));
      assert.ok(['AND', 'OR'].includes(normalizeFilterMode(parsed.data.mode)));
    }),
    { numRuns: 300 },
  );
});

test('a broken FilterObject is refused with the offending path', () => {
  const breaks: [string, (f: { mode: string; filters: Record<string, unknown>[] }, i: number) => void][] = [
    [
      'mode',
      (f) => {
        f.mode = 'XOR';
      },
    ],
    [
      'filters',
      (f) => {
        f.filters = [];
      },
    ],
    [
      'operator',
      (f, i) => {
        f.filters[i]!.operator = 'between';
      },
    ],
    ['columnKey', (f, i) => void delete f.filters[i]!.columnKey],
    [
      'value',
      (f, i) => {
        const rule = f.filters[i]!;
        if (OPERATOR_RULES[rule.operator as Operator] === 'none') rule.value = 'x';
        else delete rule.value;
      },
    ],
    [
      'value',
      (f, i) => {
        f.filters[i]!.value = { nested: true };
      },
    ],
  ];
  fc.assert(
    fc.property(validFilter, fc.nat(), fc.nat(breaks.length - 1), (filter, pick, how) => {
      const broken = structuredClone(filter) as { mode: string; filters: Record<string, unknown>[] };
      const i = pick % broken.filters.length;
      const [field, mutate] = breaks[how]!;
      mutate(broken, i);
      const parsed = FilterObjectSchema.safeParse(broken);
      assert.not.ok(parsed.success);
      const expected = field === 'mode' || field === 'filters' ? field : formatPath(['filters', i, field]);
      const paths = parsed.error!.issues.map((issue) => formatPath(issue.path));
      assert.ok(paths.includes(expected), `${JSON.stringify(paths)} should include ${expected}`);
    }),
    { numRuns: 300 },
  );
});

test('examples of the value rules', () => {
  const node = (operator: string, extra: object) => ({
    type: 'condition',
    columnKey: 'b',
    operator,
    missingPolicy: 'false',
    ...extra,
  });
  const issues = (operator: string, extra: object) =>
    RunConditionSchema.safeParse(node(operator, extra)).error?.issues.map((i) => formatPath(i.path)) ?? [];
  assert.equal(issues('between', { value: 1, value2: 5 }), []);
  assert.equal(issues('between', { value: 5, value2: 1 }), ['value2']);
  assert.equal(issues('dateBetween', { value: '2024-01-01', value2: '2024-02-01T10:00:00Z' }), []);
  assert.equal(issues('dateBetween', { value: '2024-13-01', value2: '2024-02-01' }), ['value']);
  assert.equal(issues('in', { value: ['x', 1, true] }), []);
  assert.equal(issues('in', { value: 'x' }), ['value']);
  assert.equal(issues('in', { value: [] }), ['value']);
  assert.equal(issues('isEmpty', { value: null }), ['value']);
  assert.equal(issues('isNotEmpty', {}), []);
  assert.equal(issues('equals', {}), ['value']);
  assert.equal(issues('greaterThan', { value: '3' }), ['value']);
  assert.equal(issues('before', { value: 'yesterday' }), ['value']);
  assert.equal(RunConditionSchema.safeParse({ type: 'not', children: [] }).success, false);
  assert.equal(RunConditionSchema.safeParse({ type: 'all', children: [] }).success, false);
});

test.run();
