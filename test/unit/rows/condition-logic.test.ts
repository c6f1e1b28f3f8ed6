import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FilterObject } from '../../../src/domain/columns/filter-object.ts';
import type { RunCondition } from '../../../src/domain/columns/run-condition.ts';
import type { RowColumn } from '../../../src/domain/rows/cells.ts';
import { evaluate, isEligible } from '../../../src/domain/rows/condition/evaluate.ts';
import {
  filterAsCondition,
  prepareCondition,
  resolverFor,
  type Truth,
} from '../../../src/domain/rows/condition/prepare.ts';

const COLUMNS: RowColumn[] = [
  { id: 'col_name', key: 'name', kind: 'input', dataType: 'text' },
  { id: 'col_score', key: 'score', kind: 'input', dataType: 'number' },
  { id: 'col_seen', key: 'seen', kind: 'input', dataType: 'date' },
  { id: 'col_data', key: 'data', kind: 'enrichment', dataType: 'json' },
  { id: 'col_ok', key: 'ok', kind: 'input', dataType: 'boolean' },
];
const run = (condition: RunCondition, cells: Record<string, unknown>): Truth =>
  evaluate(prepareCondition(condition, resolverFor(COLUMNS)), cells);
const leaf = (columnKey: string, operator: string, extra: object = {}): RunCondition =>
  ({ type: 'condition', columnKey, operator, missingPolicy: 'unknown', ...extra }) as RunCondition;

// Leaves with a known answer on the row { score: 1 }: true, false, and unknown (a missing value).
const ROW = { col_score: 1 };
const T = leaf('score', 'isNotEmpty');
const F = leaf('score', 'isEmpty');
const U = leaf('name', 'equals', { value: 'x' });
const VALUES: [RunCondition, Truth][] = [
  [T, true],
  [F, false],
  [U, null],
];
const and = (a: Truth, b: Truth): Truth =>
  a === false || b === false ? false : a === null || b === null ? null : true;
const or = (a: Truth, b: Truth): Truth =>
  a === true || b === true ? true : a === null || b === null ? null : false;

test('three-valued logic: all is AND, any is OR, not negates and keeps unknown (full truth tables)', () => {
  for (const [a, va] of VALUES) {
    assert.is(run({ type: 'not', children: [a] }, ROW), va === null ? null : !va, `not ${va}`);
    for (const [b, vb] of VALUES) {
      assert.is(run({ type: 'all', children: [a, b] }, ROW), and(va, vb), `${va} and ${vb}`);
      assert.is(run({ type: 'any', children: [a, b] }, ROW), or(va, vb), `${va} or ${vb}`);
    }
  }
  assert.is(run({ type: 'not', children: [{ type: 'not', children: [U] }] }, ROW), null);
});

test('a row is eligible only when the whole condition is true', () => {
  const prepared = (c: RunCondition) => prepareCondition(c, resolverFor(COLUMNS));
  assert.ok(isEligible(prepared(T), ROW));
  assert.not.ok(isEligible(prepared(U), ROW));
  assert.not.ok(isEligible(prepared({ type: 'any', children: [U, F] }), ROW));
});

test('missing values (absent, null, "", [], {}, a path that does not resolve) take the missingPolicy', () => {
  const rows = [{}, { col_name: null }, { col_name: '' }, { col_name: [] }, { col_name: {} }];
  for (const cells of rows) {
    for (const [policy, expected] of [
      ['unknown', null],
      ['true', true],
      ['false', false],
    ] as const) {
      assert.is(run(leaf('name', 'contains', { value: 'a', missingPolicy: policy }), cells), expected);
      assert.is(run(leaf('name', 'notEquals', { value: 'a', missingPolicy: policy }), cells), expected);
    }
    // isEmpty / isNotEmpty test missingness itself, whatever the policy.
    assert.is(run(leaf('name', 'isEmpty', { missingPolicy: 'false' }), cells), true);
    assert.is(run(leaf('name', 'isNotEmpty', { missingPolicy: 'true' }), cells), false);
  }
  const data = { col_data: { company: { domains: [] } } };
  assert.is(
    run(leaf('data', 'equals', { jsonPath: 'company.domains[0]', value: 'x', missingPolicy: 'true' }), data),
    true,
  );
  assert.is(run(leaf('data', 'isEmpty', { jsonPath: 'company.domains' }), data), true);
  assert.is(run(leaf('data', 'isEmpty', { jsonPath: 'company' }), data), false);
  // A column that is gone: every value of it is missing.
  assert.is(run(leaf('gone', 'isEmpty'), ROW), true);
  assert.is(run(leaf('gone', 'greaterThan', { value: 1, missingPolicy: 'false' }), ROW), false);
});

test("a group's own missingPolicy decides when the group is unknown", () => {
  assert.is(run({ type: 'all', children: [T, U], missingPolicy: 'true' }, ROW), true);
  assert.is(run({ type: 'any', children: [F, U], missingPolicy: 'false' }, ROW), false);
  assert.is(run({ type: 'not', children: [U], missingPolicy: 'true' }, ROW), true);
  assert.is(
    run({ type: 'all', children: [T, F], missingPolicy: 'true' }, ROW),
    false,
    'a decided group keeps its answer',
  );
});

test('strings compare case-insensitively (Unicode), by type, never across types', () => {
  const cells = { col_name: 'ÉCOLE Straße', col_score: 42, col_ok: true };
  const yes: RunCondition[] = [
    leaf('name', 'equals', { value: 'école straße' }),
    leaf('name', 'contains', { value: 'LE sTR' }),
    leaf('name', 'startsWith', { value: 'éc' }),
    leaf('name', 'endsWith', { value: 'TRAßE' }),
    leaf('name', 'in', { value: ['x', 'École STRAßE'] }),
    leaf('name', 'notIn', { value: ['x'] }),
    leaf('name', 'notContains', { value: 'zz' }),
    leaf('score', 'equals', { value: 42 }),
    leaf('score', 'notEquals', { value: '42' }),
    leaf('ok', 'isTrue'),
    leaf('ok', 'in', { value: [true] }),
  ];
  const no: RunCondition[] = [
    // Simple case mapping: no letter becomes two (ß is not ss), accents stay.
    leaf('name', 'equals', { value: 'ecole straße' }),
    leaf('name', 'endsWith', { value: 'strasse' }),
    leaf('score', 'equals', { value: '42' }),
    leaf('score', 'contains', { value: '4' }),
    leaf('name', 'greaterThan', { value: 1 }),
    leaf('ok', 'isFalse'),
    leaf('ok', 'equals', { value: 'true' }),
  ];
  for (const c of yes) assert.is(run(c, cells), true, JSON.stringify(c));
  for (const c of no) assert.is(run(c, cells), false, JSON.stringify(c));
});

test('between and dateBetween include both ends; dates compare as instants', () => {
  for (const [score, expected] of [
    [1, true],
    [2, true],
    [3, true],
    [0.999, false],
    [3.001, false],
  ] as const) {
    assert.is(
      run(leaf('score', 'between', { value: 1, value2: 3 }), { col_score: score }),
      expected,
      String(score),
    );
  }
  const seen = { col_seen: '2024-01-02T03:00:00.000Z' };
  assert.is(
    run(leaf('seen', 'dateBetween', { value: '2024-01-02T05:00:00+02:00', value2: '2024-01-03' }), seen),
    true,
  );
  assert.is(
    run(leaf('seen', 'dateBetween', { value: '2024-01-01', value2: '2024-01-02T03:00:00Z' }), seen),
    true,
  );
  assert.is(
    run(leaf('seen', 'before', { value: '2024-01-02T04:00:00+01:00' }), seen),
    false,
    'the same instant',
  );
  assert.is(run(leaf('seen', 'after', { value: '2024-01-02' }), seen), true);
  assert.is(run(leaf('seen', 'equals', { value: '2024-01-02T04:00:00+01:00' }), seen), true);
  assert.is(run(leaf('name', 'before', { value: '2030-01-01' }), { col_name: 'soon' }), false, 'not a date');
  assert.is(
    run(leaf('data', 'after', { value: '2020-01-01', jsonPath: 'at' }), { col_data: { at: '2024-05-01' } }),
    true,
  );
});

test('jsonPath reads into JSON cells', () => {
  const cells = { col_data: { company: { domains: ['Ada.example', 'b.test'], size: 12 }, list: [{ n: 1 }] } };
  assert.is(
    run(leaf('data', 'equals', { jsonPath: 'company.domains[0]', value: 'ada.EXAMPLE' }), cells),
    true,
  );
  assert.is(run(leaf('data', 'equals', { jsonPath: '$.company.domains[1]', value: 'b.test' }), cells), true);
  assert.is(run(leaf('data', 'greaterThan', { jsonPath: 'company.size', value: 10 }), cells), true);
  assert.is(run(leaf('data', 'equals', { jsonPath: 'list[0].n', value: 1 }), cells), true);
  assert.is(run(leaf('data', 'equals', { jsonPath: 'company.domains[5]', value: 'x' }), cells), null);
});

test('a FilterObject is leaves with missingPolicy false, combined by AND or OR', () => {
  const filter = (mode: FilterObject['mode'], filters: FilterObject['filters']) =>
    filterAsCondition({ mode, filters });
  const rules: FilterObject['filters'] = [
    { columnKey: 'score', operator: 'greaterThan', value: 0 },
    { columnKey: 'name', operator: 'equals', value: 'x' },
  ];
  assert.is(run(filter('AND', rules), ROW), false, 'a missing name is false, not unknown');
  assert.is(run(filter('or', rules), ROW), true);
  assert.is(run(filter('OR', [rules[1]!]), ROW), false);
});

test.run();
