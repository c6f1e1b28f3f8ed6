import * as assert from 'uvu/assert';
import { tablesProjection } from '../../../projections/tables/tables.ts';
import { tableStream } from '../../../src/domain/tables/table-state.ts';
import { projectionSuite, SpecLog } from '../../support/projection-spec.ts';

const test = projectionSuite('tables projection (given events, then rows)', tablesProjection);

const created = (tableId: string, name: string, at: string) => ({
  type: 'TableCreated' as const,
  data: { tableId, organizationId: 'o1', name, at },
});
const renamed = (tableId: string, name: string, at: string) => ({
  type: 'TableRenamed' as const,
  data: { tableId, name, at },
});

test('created, then renamed; re-applying a batch or a stale rename changes nothing', async ({ spec }) => {
  const log = new SpecLog();
  const stream = tableStream.name('t1');
  const first = log.append(stream, created('t1', 'Old', '2024-01-01T00:00:00.000Z'));
  const second = log.append(stream, renamed('t1', 'New', '2024-01-02T00:00:00.000Z'));
  const stale = log.append(stream, renamed('t1', 'Stale', '2024-01-01T12:00:00.000Z'), { revision: 0 });
  const row = {
    id: 't1',
    organization_id: 'o1',
    name: 'New',
    created_at: new Date('2024-01-01T00:00:00.000Z'),
    updated_at: new Date('2024-01-02T00:00:00.000Z'),
    revision: '1',
  };
  await (await spec.given([first, second])).thenRows([row]);
  await (await spec.given([first], [second])).thenRows([row]);
  await (await spec.given([first, second], [first, second])).thenRows([row]);
  await (await spec.given([first, second], [first], [stale])).thenRows([row]);
});

test('a stored row folded again keeps every digit of its timestamps', async ({ spec }) => {
  const log = new SpecLog();
  const stream = tableStream.name('t1');
  const given = await spec.given(
    [log.append(stream, created('t1', 'A', '2024-01-01T00:00:00.123456Z'))],
    [log.append(stream, renamed('t1', 'B', '2024-01-02T00:00:00.654321Z'))],
  );
  await given.thenRows([{ name: 'B', created_us: '1704067200123456', updated_us: '1704153600654321' }], {
    columns: `name, (extract(epoch FROM created_at) * 1000000)::bigint::text AS created_us,
      (extract(epoch FROM updated_at) * 1000000)::bigint::text AS updated_us`,
  });
});

test("many tables in one batch, with their streams' column events (not this read model's) between", async ({
  spec,
}) => {
  const log = new SpecLog();
  const ids = Array.from({ length: 30 }, (_, n) => `t${String(n).padStart(2, '0')}`);
  const at = '2024-03-01T00:00:00.000Z';
  const column = (tableId: string) => ({
    type: 'ColumnAdded' as const,
    data: { tableId, columnId: `${tableId}c`, key: 'k', kind: 'input' as const, dataType: 'text' as const },
  });
  const batch = [
    ...ids.map((id) => log.append(tableStream.name(id), created(id, `table ${id}`, at))),
    ...ids.map((id) => log.append(tableStream.name(id), column(id))),
    ...ids
      .filter((_, n) => n % 2 === 0)
      .map((id) => log.append(tableStream.name(id), renamed(id, `renamed ${id}`, at))),
  ];
  const given = await spec.given(batch);
  assert.ok(given.statements[0]! <= 3, `${given.statements[0]} statements`);
  // A renamed table's revision is its rename's (2, after ColumnAdded), the others' their creation's.
  await given.thenRows(
    ids.map((id, n) => ({
      id,
      name: n % 2 === 0 ? `renamed ${id}` : `table ${id}`,
      revision: n % 2 === 0 ? '2' : '0',
    })),
    { columns: 'id, name, revision' },
  );
});

test.run();
