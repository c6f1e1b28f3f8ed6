import * as assert from 'uvu/assert';
import { columnsProjection } from '../../../projections/columns/columns.ts';
import { columnStream } from '../../../src/domain/columns/column-state.ts';
import { tableStream } from '../../../src/domain/tables/table-state.ts';
import { columnCreated } from '../../support/column-events.ts';
import { projectionSuite, SpecLog } from '../../support/projection-spec.ts';

const test = projectionSuite('columns projection (given events, then rows)', columnsProjection);

const patch = (tableId: string, columnId: string, changes: object) => ({
  type: 'ColumnPatched' as const,
  data: { tableId, columnId, changes },
});
const move = (tableId: string, columnId: string, position: number) => ({
  type: 'ColumnMoved' as const,
  data: { tableId, columnId, position },
});
const removal = (tableId: string, columnId: string, key: string) => ({
  type: 'ColumnRemoved' as const,
  data: { tableId, columnId, key },
});

/** One column's life: created, patched (config merged one level deep, a null removing a key), moved. */
function summaryColumn() {
  const log = new SpecLog();
  const stream = columnStream.name('t1', 'c1');
  const config = { provider: 'llm', mode: 'basic', lane: 'x' };
  const created = log.append(
    stream,
    columnCreated('t1', 'c1', { key: 'summary', label: 'Summary', position: 1, kind: 'enrichment', config }),
  );
  const changes = { label: 'Short', config: { mode: 'advanced', lane: null, extra: { a: 1 } } };
  const patched = log.append(stream, patch('t1', 'c1', changes));
  const moved = log.append(stream, move('t1', 'c1', 4.5));
  const row = {
    id: 'c1',
    table_id: 't1',
    key: 'summary',
    label: 'Short',
    kind: 'enrichment',
    data_type: 'text',
    origin: 'api',
    status: 'idle',
    auto_run: 'never',
    config: { provider: 'llm', mode: 'advanced', extra: { a: 1 } },
    position: 4.5,
    is_important: false,
    revision: '2',
  };
  return { log, stream, created, patched, moved, row };
}

test('a column created, patched and moved: one row, whether in one batch or three', async ({ spec }) => {
  const { created, patched, moved, row } = summaryColumn();
  await (await spec.given([created, patched, moved])).thenRows([row]);
  await (await spec.given([created], [patched], [moved])).thenRows([row]);
});

test('re-applying is a no-op: the same batch twice, an older batch after it, a stale event', async ({
  spec,
}) => {
  const { log, stream, created, patched, moved, row } = summaryColumn();
  await (await spec.given([created, patched, moved], [created, patched, moved])).thenRows([row]);
  await (await spec.given([created, patched, moved], [created, patched])).thenRows([row]);
  const stale = log.append(stream, patch('t1', 'c1', { label: 'stale' }), { revision: 1 });
  await (await spec.given([created, patched, moved], [stale])).thenRows([row]);
});

test("a column goes when its table's stream removes it; its stream's later events make no row", async ({
  spec,
}) => {
  const { log, stream, created, patched, moved } = summaryColumn();
  const removed = log.append(tableStream.name('t1'), removal('t1', 'c1', 'summary'));
  // A PATCH that lost the race with the delete: appended to the column's stream after the removal.
  const late = log.append(stream, patch('t1', 'c1', { label: 'late' }));
  await (await spec.given([created, patched, moved], [removed])).thenRows([]);
  await (await spec.given([created, patched, moved, removed])).thenRows([]);
  await (await spec.given([created, patched, moved, removed, late])).thenRows([]);
  await (await spec.given([created, patched, moved], [removed], [late])).thenRows([]);
  await (await spec.given([created, patched, moved, removed], [created, patched, moved, removed])).thenRows(
    [],
  );
});

test('a column removed and created again in one batch: its key taken by a new column', async ({ spec }) => {
  const log = new SpecLog();
  const table = tableStream.name('t1');
  const old = log.append(
    columnStream.name('t1', 'c1'),
    columnCreated('t1', 'c1', { key: 'email', label: 'E', position: 1 }),
  );
  const again = [
    log.append(table, removal('t1', 'c1', 'email')),
    log.append(table, {
      type: 'ColumnAdded',
      data: { tableId: 't1', columnId: 'c2', key: 'email', kind: 'input', dataType: 'text' },
    }),
    log.append(
      columnStream.name('t1', 'c2'),
      columnCreated('t1', 'c2', { key: 'email', label: 'Email', position: 2 }),
    ),
  ];
  const columns = 'id, key, label, position, revision';
  const rows = [{ id: 'c2', key: 'email', label: 'Email', position: 2, revision: '0' }];
  await (await spec.given([old], again)).thenRows(rows, { columns });
  await (await spec.given([old], again, again)).thenRows(rows, { columns });
});

test('a column removed and created again in one batch under the same id: its stream starts over', async ({
  spec,
}) => {
  const { log, stream, created, patched, moved } = summaryColumn();
  const removed = log.append(tableStream.name('t1'), removal('t1', 'c1', 'summary'));
  // Not something the API does today (a removed column stays removed), but the rule is the helper's:
  // after a removal the row is gone, and an event of its stream folds from the initial state.
  const recreated = log.append(
    stream,
    columnCreated('t1', 'c1', { key: 'summary', label: 'Back', position: 9 }),
  );
  const columns = 'id, key, label, kind, config, position, revision';
  const rows = [
    { id: 'c1', key: 'summary', label: 'Back', kind: 'input', config: {}, position: 9, revision: '3' },
  ];
  await (await spec.given([created, patched, moved], [removed, recreated])).thenRows(rows, { columns });
  await (await spec.given([created, patched, moved, removed, recreated])).thenRows(rows, { columns });
  await (await spec.given([created, patched, moved], [removed, recreated], [removed, recreated])).thenRows(
    rows,
    {
      columns,
    },
  );
});

test('events of many streams in one batch: the rows one event at a time gives, in at most three statements', async ({
  spec,
}) => {
  const log = new SpecLog();
  const ids: { tableId: string; columnId: string; n: number }[] = [];
  for (const tableId of ['t1', 't2', 't3'])
    for (let n = 0; n < 40; n++)
      ids.push({ tableId, columnId: `${tableId}c${String(n).padStart(3, '0')}`, n });
  const stream = ({ tableId, columnId }: (typeof ids)[number]) => columnStream.name(tableId, columnId);
  const create = (c: (typeof ids)[number]) =>
    log.append(
      stream(c),
      columnCreated(c.tableId, c.columnId, { key: `k${c.n}`, label: 'new', position: c.n }),
    );
  // Half the columns are stored before the batch, half created in it; the batch goes phase by phase
  // across every stream, so that each stream's events lie far apart in it.
  const stored = ids.filter((c) => c.n < 20).map(create);
  const batch = [
    ...ids.filter((c) => c.n >= 20).map(create),
    ...ids.map((c) =>
      log.append(stream(c), patch(c.tableId, c.columnId, { label: `Label ${c.n}`, isImportant: true })),
    ),
    ...ids
      .filter((c) => c.n % 4 === 0)
      .map((c) => log.append(tableStream.name(c.tableId), removal(c.tableId, c.columnId, `k${c.n}`))),
    ...ids.map((c) => log.append(stream(c), move(c.tableId, c.columnId, c.n / 2))),
  ];
  const expected = ids
    .filter((c) => c.n % 4 !== 0)
    .map((c) => ({
      id: c.columnId,
      table_id: c.tableId,
      label: `Label ${c.n}`,
      is_important: true,
      position: c.n / 2,
      revision: '2',
    }));
  const columns = 'id, table_id, label, is_important, position, revision';
  const whole = await spec.given(stored, batch);
  await whole.thenRows(expected, { columns });
  // The read, one upsert and one delete (of the stored columns removed).
  assert.equal(whole.statements, [2, 3]);
  const oneByOne = await spec.given(...[...stored, ...batch].map((e) => [e]));
  assert.equal(await oneByOne.rows(), await whole.rows());
});

test('one batch folds a stored column with patches of its own and the creation of another', async ({
  spec,
}) => {
  const log = new SpecLog();
  const a = columnStream.name('t2', 'a');
  const b = columnStream.name('t2', 'b');
  const config = { provider: 'llm', mode: 'basic' };
  const first = [
    log.append(b, columnCreated('t2', 'b', { key: 'beta', label: 'beta', position: 2, config })),
    log.append(b, patch('t2', 'b', { label: 'Beta 1' })),
  ];
  const second = [
    log.append(a, columnCreated('t2', 'a', { key: 'alpha', label: 'alpha', position: 1, config })),
    log.append(b, patch('t2', 'b', { label: 'stale' }), { revision: 1 }),
    log.append(a, patch('t2', 'a', { label: 'Alpha', config: { mode: 'advanced', lane: 'fast' } })),
    log.append(b, patch('t2', 'b', { autoRun: 'onInsert' })),
    log.append(a, patch('t2', 'a', { isImportant: true, config: { lane: null } })),
    log.append(a, move('t2', 'a', 0.5)),
    log.append(b, patch('t2', 'b', { position: 7, config: { provider: null, extra: [1, 2] } })),
  ];
  const given = await spec.given(first, second);
  await given.thenRows(
    [
      {
        id: 'a',
        label: 'Alpha',
        auto_run: 'never',
        config: { provider: 'llm', mode: 'advanced' },
        position: 0.5,
        is_important: true,
        revision: '3',
      },
      {
        id: 'b',
        label: 'Beta 1',
        auto_run: 'onInsert',
        config: { mode: 'basic', extra: [1, 2] },
        position: 7,
        is_important: false,
        revision: '3',
      },
    ],
    { columns: 'id, label, auto_run, config, position, is_important, revision' },
  );
});

test.run();
