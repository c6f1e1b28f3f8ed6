import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { syncToTableExecutor } from '../../../processes/runs/executors/sync-to-table.ts';
import { MAX_BATCH } from '../../../src/domain/rows/schemas.ts';
import { AppError } from '../../../src/errors.ts';
import { executorContext, RecordingRowWriter } from '../../support/executor-context.ts';

const test = suite('sync_to_table executor');

const base = { provider: 'sync_to_table', destinationTableId: 'tbl_dest' };
const columns = [
  { id: 'col_name', key: 'name', dataType: 'text' },
  { id: 'col_company', key: 'company', dataType: 'json' },
  { id: 'col_people', key: 'people', dataType: 'json' },
  { id: 'col_tier', key: 'tier', dataType: 'text' },
];
const cells = {
  name: 'Ada',
  company: { domain: 'ada.test', offices: [{ city: 'London' }] },
  people: {
    items: [{ email: 'a@ada.test', role: 'cto' }, { email: 'b@ada.test' }],
    other: { list: [{ email: 'c@ada.test' }] },
  },
  tier: 'gold',
};

const isSilver = {
  type: 'condition',
  columnKey: 'tier',
  operator: 'equals',
  value: 'silver',
  missingPolicy: 'false',
};

/** A row-mode sync of `name` into `n`, writing into `rows`. */
const nameToN = (rows: RecordingRowWriter) =>
  executorContext({
    config: { ...base, columnMappings: [{ sourceKey: 'name', destKey: 'n' }] },
    cells,
    columns,
    rows,
  });

const run = async (config: Record<string, unknown>, rowCells: Record<string, unknown> = cells) => {
  const rows = new RecordingRowWriter();
  const outcome = await syncToTableExecutor(
    executorContext({ config: { ...base, ...config }, cells: rowCells, columns, rows }),
  );
  return { outcome, rows };
};

test('row mode, copy: one destination row from the mappings, paths into JSON cells', async () => {
  const { outcome, rows } = await run({
    columnMappings: [
      { sourceKey: 'name', destKey: 'full_name' },
      { sourceKey: 'company', path: 'domain', destKey: 'domain' },
      { sourceKey: 'company', path: 'offices[0].city', destKey: 'city' },
      { sourceKey: 'company', path: 'nowhere', destKey: 'absent' },
    ],
  });
  assert.equal(rows.calls, [
    {
      tableId: 'tbl_dest',
      rows: [{ cells: { full_name: 'Ada', domain: 'ada.test', city: 'London' } }],
      batchKey: 'run_test:row_source1',
    },
  ]);
  assert.equal(outcome, {
    ok: true,
    value: { tableId: 'tbl_dest', rowIds: ['row_dest1'], syncBehavior: 'copy' },
    meta: { durationMs: 0, attempts: 1 },
  });
});

test('link records the source row in the cell value; the destination rows are the same', async () => {
  const { outcome, rows } = await run({
    syncBehavior: 'link',
    columnMappings: [{ sourceKey: 'name', destKey: 'n' }],
  });
  assert.ok(outcome.ok);
  assert.equal(outcome.value, {
    tableId: 'tbl_dest',
    rowIds: ['row_dest1'],
    syncBehavior: 'link',
    sourceRowId: 'row_source1',
  });
  assert.equal(rows.rows, [{ n: 'Ada' }]);
});

test('list mode: one row per item at listPath (default items), item and row mappings together', async () => {
  const mappings = [
    { sourceScope: 'item', itemKey: 'email', destKey: 'email' },
    { sourceScope: 'item', itemKey: 'role', destKey: 'role' },
    { sourceScope: 'row', sourceKey: 'company', path: 'domain', destKey: 'domain' },
  ];
  const { outcome, rows } = await run({
    syncMode: 'list',
    listSourceColumnId: 'col_people',
    columnMappings: mappings,
  });
  assert.equal(rows.rows, [
    { email: 'a@ada.test', role: 'cto', domain: 'ada.test' },
    { email: 'b@ada.test', domain: 'ada.test' },
  ]);
  assert.ok(outcome.ok);
  assert.equal((outcome.value as { rowIds: string[] }).rowIds, ['row_dest1', 'row_dest2']);

  const other = await run({
    syncMode: 'list',
    listSourceColumnId: 'col_people',
    listPath: 'other.list',
    columnMappings: mappings.slice(0, 1),
  });
  assert.equal(other.rows.rows, [{ email: 'c@ada.test' }]);
});

test('list mode: an empty or absent list makes no rows; a value that is not a list is the row error', async () => {
  const config = { syncMode: 'list', listSourceColumnId: 'col_people', columnMappings: [] };
  const empty = await run(config, { ...cells, people: { items: [] } });
  assert.equal(empty.outcome.ok && empty.outcome.value, {
    tableId: 'tbl_dest',
    rowIds: [],
    syncBehavior: 'copy',
  });
  const absent = await run(config, { ...cells, people: null });
  assert.ok(absent.outcome.ok);
  const notList = await run(config, { ...cells, people: { items: 'nope' } });
  assert.ok(!notList.outcome.ok);
  assert.is(notList.outcome.error.code, 'invalid_input');
  assert.match(notList.outcome.error.message, /people holds no array at items/);
  assert.is(notList.rows.calls.length, 0);
});

test('routes: the first whose condition matches wins and inherits what it does not set', async () => {
  const routes = [
    {
      condition: isSilver,
      columnMappings: [{ sourceKey: 'name', destKey: 'silver' }],
    },
    {
      condition: {
        type: 'condition',
        columnKey: 'company',
        jsonPath: 'domain',
        operator: 'endsWith',
        value: '.test',
        missingPolicy: 'false',
      },
      syncBehavior: 'link',
    },
    { columnMappings: [{ sourceKey: 'name', destKey: 'fallback' }] },
  ];
  const { outcome, rows } = await run({ routes, columnMappings: [{ sourceKey: 'tier', destKey: 'top' }] });
  // The second route: its own behaviour, the top-level mappings.
  assert.equal(rows.rows, [{ top: 'gold' }]);
  assert.ok(outcome.ok && (outcome.value as { syncBehavior: string }).syncBehavior === 'link');
  const third = await run({ routes }, { ...cells, company: { domain: 'ada.example' } });
  assert.equal(third.rows.rows, [{ fallback: 'Ada' }]);
});

test('no route matching: the row is skipped with no_route_matched and nothing is written', async () => {
  const routes = [
    {
      condition: isSilver,
    },
  ];
  const { outcome, rows } = await run({ routes });
  assert.ok(!outcome.ok);
  assert.is(outcome.error.code, 'no_route_matched');
  assert.is(rows.calls.length, 0);
});

test('a repeat of the same row (same batch key) makes nothing new', async () => {
  const rows = new RecordingRowWriter();
  const context = nameToN(rows);
  const first = await syncToTableExecutor(context);
  const again = await syncToTableExecutor(context);
  assert.equal(again, first);
  assert.equal(
    rows.calls.map((c) => c.batchKey),
    ['run_test:row_source1', 'run_test:row_source1'],
  );
});

test('a long list goes in batches of the rows API size, each with its own key', async () => {
  const items = Array.from({ length: MAX_BATCH + 5 }, (_, i) => ({ n: i }));
  const { outcome, rows } = await run(
    {
      syncMode: 'list',
      listSourceColumnId: 'col_people',
      columnMappings: [{ sourceScope: 'item', itemKey: 'n', destKey: 'n' }],
    },
    { ...cells, people: { items } },
  );
  assert.equal(
    rows.calls.map((c) => [c.batchKey, c.rows.length]),
    [
      ['run_test:row_source1', MAX_BATCH],
      ['run_test:row_source1:1', 5],
    ],
  );
  assert.ok(outcome.ok && (outcome.value as { rowIds: string[] }).rowIds.length === MAX_BATCH + 5);
});

test('the destination refusing the rows is the row error; a fault of the service is thrown', async () => {
  const rows = new RecordingRowWriter();
  rows.failWith = new AppError('validation_failed', 'Invalid cells', {
    errors: [{ path: 'rows[0].cells.n', message: 'expected a number' }],
  });
  const context = nameToN(rows);
  const outcome = await syncToTableExecutor(context);
  assert.ok(!outcome.ok);
  assert.is(outcome.error.code, 'destination_rejected');
  assert.match(
    outcome.error.message,
    /tbl_dest refused the rows: Invalid cells; rows\[0\]\.cells\.n: expected a number/,
  );
  rows.failWith = new Error('connection lost');
  await syncToTableExecutor(context).then(
    () => assert.unreachable('a fault of our own is not a row error'),
    (error) => assert.is((error as Error).message, 'connection lost'),
  );
});

test.run();
