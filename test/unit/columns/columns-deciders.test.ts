import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type CreateColumn, createColumn } from '../../../commands/columns/create-column.ts';
import { type PatchColumn, patchColumn } from '../../../commands/columns/patch-column.ts';
import { moveColumn, planReorder } from '../../../commands/columns/reorder-columns.ts';
import type { ConfigContext } from '../../../src/domain/columns/config/index.ts';
import type { ColumnEvent } from '../../../src/domain/columns/events.ts';
import type { Column } from '../../../src/domain/columns/fields.ts';
import { AppError } from '../../../src/errors.ts';
import { COLUMN_DEFAULTS } from '../../support/column-events.ts';
import { given, pathsOf } from '../../support/decider-spec.ts';

const test = suite('columns: deciders of the column stream (given events, when command, then events)');

const context: ConfigContext = {
  organizationId: 'o1',
  columns: [
    { id: 'c1', key: 'summary', dataType: 'text' },
    { id: 'c2', key: 'score', dataType: 'number' },
    { id: 'c3', key: 'payload', dataType: 'json' },
  ],
  tables: new Map(),
};

const column: Column = {
  id: 'c1',
  key: 'summary',
  label: 'Summary',
  kind: 'enrichment',
  dataType: 'text',
  ...COLUMN_DEFAULTS,
  config: { provider: 'llm', mode: 'basic', llmLane: 'very_fast' },
  position: 1,
};
const { id: _id, ...fields } = column;
const created: ColumnEvent = { type: 'ColumnCreated', data: { tableId: 't1', columnId: 'c1', ...fields } };
const create: CreateColumn = { tableId: 't1', column, context };
const patch = (p: PatchColumn['patch']): PatchColumn => ({
  tableId: 't1',
  columnId: 'c1',
  patch: p,
  context,
});
const patched = (changes: object): ColumnEvent => ({
  type: 'ColumnPatched',
  data: { tableId: 't1', columnId: 'c1', changes },
});
const score10 = {
  type: 'condition',
  columnKey: 'score',
  operator: 'greaterThan',
  missingPolicy: 'false',
  value: 10,
};

test('create: the column with its validated config; created twice is a conflict', () => {
  given(createColumn, []).when(create).thenEvents([created]);
  given(createColumn, [created]).when(create).refuses('conflict');
});

test('create: an invalid config or key is refused with every offending path', () => {
  const bad = { ...column, config: { provider: 'http_request', url: 'ftp://x', method: 'GET', extra: 1 } };
  const refusal = given(createColumn, [])
    .when({ ...create, column: bad })
    .refuses('validation_failed');
  assert.equal(pathsOf(refusal), ['config.extra', 'config.url']);
  given(createColumn, [])
    .when({ ...create, column: { ...column, key: '9lives' } })
    .refuses('validation_failed');
});

test('create: config defaults are written in (http_request timeoutSeconds 30)', () => {
  const config = { provider: 'http_request', url: 'https://x.test/{{summary}}', method: 'GET' };
  given(createColumn, [])
    .when({ ...create, column: { ...column, config } })
    .thenEvents([
      { ...created, data: { ...created.data, config: { ...config, timeoutSeconds: 30 } } } as ColumnEvent,
    ]);
});

test('patch: records only what changed; the same values record nothing', () => {
  given(patchColumn, [created])
    .when(patch({ label: 'New', isImportant: true }))
    .thenEvents([patched({ label: 'New', isImportant: true })]);
  given(patchColumn, [created])
    .when(
      patch({
        label: 'Summary',
        position: 1,
        isImportant: false,
        autoRun: 'never',
        config: { mode: 'basic' },
      }),
    )
    .thenEvents([]);
  given(patchColumn, [created])
    .when(patch({ position: 2.5, autoRun: 'onInsert' }))
    .thenEvents([patched({ position: 2.5, autoRun: 'onInsert' })]);
});

test('autoRun needs a provider: refused on an input column at create and PATCH; an older one keeps taking other PATCHes', () => {
  // Issue 34, item 10 (test/integration/columns/autorun-input-column.test.ts has the API's answers).
  const input: Column = { ...column, kind: 'input', config: {} };
  const refusal = given(createColumn, [])
    .when({ ...create, column: { ...input, autoRun: 'onInsert' } })
    .refuses('validation_failed');
  assert.equal(pathsOf(refusal), ['autoRun']);
  const { id: _inputId, ...inputFields } = input;
  const inputCreated: ColumnEvent = {
    type: 'ColumnCreated',
    data: { tableId: 't1', columnId: 'c1', ...inputFields },
  };
  assert.equal(
    pathsOf(
      given(patchColumn, [inputCreated])
        .when(patch({ autoRun: 'onSourceUpdate' }))
        .refuses('validation_failed'),
    ),
    ['autoRun'],
  );
  // The llm column auto-runs never: removing its provider is fine.
  given(patchColumn, [created])
    .when(patch({ config: { provider: null } }))
    .thenEvents([patched({ config: { provider: null } })]);
  const autoRunning = patched({ autoRun: 'onInsert' });
  assert.equal(
    pathsOf(
      given(patchColumn, [created, autoRunning])
        .when(patch({ config: { provider: null, mode: null, llmLane: null } }))
        .refuses('validation_failed'),
    ),
    ['config.provider'],
  );
  // Stored before the rule: an input column that auto-runs still takes a new label or config.
  const older: ColumnEvent = {
    ...inputCreated,
    data: { ...inputCreated.data, autoRun: 'onInsert' },
  } as ColumnEvent;
  given(patchColumn, [older])
    .when(patch({ label: 'Renamed' }))
    .thenEvents([patched({ label: 'Renamed' })]);
  given(patchColumn, [older])
    .when(patch({ config: { note: 'x' } }))
    .thenEvents([patched({ config: { note: 'x' } })]);
});

test('patch: config merges one level deep; null removes a key; the diff names only changed keys', () => {
  given(patchColumn, [created])
    .when(patch({ config: { mode: 'advanced', llmLane: null, extra: { a: 1 } } }))
    .thenEvents([patched({ config: { llmLane: null, mode: 'advanced', extra: { a: 1 } } })]);
  // A removed key that is not there changes nothing.
  given(patchColumn, [created])
    .when(patch({ config: { absent: null } }))
    .thenEvents([]);
});

test('patch: runCondition is replaced whole, and null removes it', () => {
  const first = { type: 'all', children: [score10, { ...score10, operator: 'lessThan', value: 99 }] };
  const withCondition = patched({ config: { runCondition: first } });
  given(patchColumn, [created])
    .when(patch({ config: { runCondition: first } }))
    .thenEvents([withCondition]);
  const second = { type: 'not', children: [{ ...score10, operator: 'isEmpty', value: undefined }] };
  delete (second.children[0] as { value?: number }).value;
  given(patchColumn, [created, withCondition])
    .when(patch({ config: { runCondition: second } }))
    .thenEvents([patched({ config: { runCondition: second } })]);
  given(patchColumn, [created, withCondition])
    .when(patch({ config: { runCondition: null } }))
    .thenEvents([patched({ config: { runCondition: null } })]);
});

test('patch: the merged config is validated against the table (paths name each offence)', () => {
  const condition = {
    type: 'any',
    children: [
      score10,
      { type: 'condition', columnKey: 'nope', operator: 'between', missingPolicy: 'x', value: 1 },
    ],
  };
  const refusal = given(patchColumn, [created])
    .when(patch({ config: { runCondition: condition } }))
    .refuses('validation_failed');
  assert.equal(pathsOf(refusal), [
    'config.runCondition.children[1].missingPolicy',
    'config.runCondition.children[1].value2',
  ]);
  // Switching the provider validates what the merge leaves, old keys included.
  const switched = given(patchColumn, [created])
    .when(patch({ config: { provider: 'add_to_sequence', sequenceId: 's1', sourceLeadColumn: 'summary' } }))
    .refuses('validation_failed');
  assert.equal(pathsOf(switched), ['config.llmLane', 'config.mode']);
  given(patchColumn, [created])
    .when(
      patch({
        config: {
          provider: 'add_to_sequence',
          sequenceId: 's1',
          sourceLeadColumn: 'summary',
          mode: null,
          llmLane: null,
        },
      }),
    )
    .thenEvents([
      patched({
        config: {
          mode: null,
          llmLane: null,
          provider: 'add_to_sequence',
          sequenceId: 's1',
          sourceLeadColumn: 'summary',
        },
      }),
    ]);
});

test('patch and move of a column that was never created is 404', () => {
  given(patchColumn, [])
    .when(patch({ label: 'x' }))
    .refuses('not_found');
  given(moveColumn, []).when({ tableId: 't1', columnId: 'c1', position: 3 }).refuses('not_found');
});

test('move: a new position is ColumnMoved; the same position records nothing', () => {
  given(moveColumn, [created])
    .when({ tableId: 't1', columnId: 'c1', position: 3 })
    .thenEvents([{ type: 'ColumnMoved', data: { tableId: 't1', columnId: 'c1', position: 3 } }]);
  given(moveColumn, [created]).when({ tableId: 't1', columnId: 'c1', position: 1 }).thenEvents([]);
});

test('reorder plan: every column exactly once gets 1..n; missing, unknown or repeated ids are 400', () => {
  const cols = ['a', 'b', 'c'].map((id) => ({ ...column, id }));
  assert.equal(planReorder(['c', 'a', 'b'], cols), [
    { columnId: 'c', position: 1 },
    { columnId: 'a', position: 2 },
    { columnId: 'b', position: 3 },
  ]);
  const refusal = (ids: string[]) => {
    try {
      planReorder(ids, cols);
    } catch (error) {
      if (error instanceof AppError) return error;
    }
    throw new Error('expected a refusal');
  };
  assert.equal(pathsOf(refusal(['a', 'b'])), ['columnIds']);
  assert.equal(pathsOf(refusal(['a', 'b', 'c', 'a'])), ['columnIds[3]']);
  assert.equal(pathsOf(refusal(['a', 'b', 'x'])), ['columnIds', 'columnIds[2]']);
});

test.run();
