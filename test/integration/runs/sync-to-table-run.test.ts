import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { insertRowsAs } from '../../../commands/rows/insert-rows.ts';
import { batchIdFor, rowIdOf } from '../../../src/domain/rows/ids.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { createColumns, insertRows, listAll } from '../../support/rows.ts';
import { runEnded, startRunsApp } from '../../support/runs.ts';
import { createTable } from '../../support/tables.ts';

/* Issue 15: a sync_to_table run writes its rows through the rows API's own insert, once. */
const test = suite<{ t: TestApp; key: string; organizationId: string }>('column runs of sync_to_table');
test.before(async (ctx) => {
  ctx.t = await startRunsApp();
  const account = await bootstrapAccount(ctx.t.app);
  ctx.key = account.apiKey;
  ctx.organizationId = account.organizationId;
});
test.after(async (ctx) => ctx.t.close());

test('each source row becomes a destination row; the cell names it', async (ctx) => {
  const { t, key } = ctx;
  const destination = await createTable(t.app, key, 'Companies');
  await createColumns(t.app, key, destination, { company: 'text' });
  const source = await createTable(t.app, key, 'People');
  const columns = await createColumns(t.app, key, source, {
    name: 'text',
    employer: 'text',
    sync: {
      dataType: 'json',
      kind: 'action',
      config: {
        provider: 'sync_to_table',
        destinationTableId: destination,
        syncMode: 'row',
        syncBehavior: 'copy',
        columnMappings: [{ sourceKey: 'employer', destKey: 'company' }],
      },
    },
  });
  await insertRows(t.app, key, source, [
    { name: 'a', employer: 'Acme' },
    { name: 'b', employer: 'Globex' },
  ]);
  const started = await call(t.app, 'POST', `/api/tables/${source}/columns/${columns.sync.id}/run`, {
    headers: bearer(key),
    body: { scope: 'all' },
  });
  assert.is(started.status, 202, JSON.stringify(started.body));
  const ended = await runEnded(t.app, key, started.body.id);
  assert.is(ended.status, 'succeeded', JSON.stringify(ended));
  const written = await listAll(t.app, key, destination);
  assert.equal(written.map((r) => r.cells.company).sort(), ['Acme', 'Globex']);
  const cells = (await listAll(t.app, key, source)).map((r) => r.cells.sync);
  assert.equal(
    cells.map((c) => [c.tableId, c.rowIds.length]),
    [
      [destination, 1],
      [destination, 1],
    ],
  );
  assert.equal(cells.flatMap((c) => c.rowIds).sort(), written.map((r) => r.id).sort());
});

test('a batch written again under the same id (a row worked twice) answers its first rows and adds none', async (ctx) => {
  const { t, key, organizationId } = ctx;
  const tableId = await createTable(t.app, key, 'Once');
  await createColumns(t.app, key, tableId, { v: 'text' });
  const batchId = batchIdFor(Date.parse('2026-01-01T00:00:00Z'), 'run_x:row_y');
  const write = () =>
    insertRowsAs(t.deps, {
      tableId,
      organizationId,
      cells: [{ v: 'one' }, { v: 'two' }],
      metadata: {},
      batchId,
    });
  const first = await write();
  const again = await write();
  assert.equal(
    again.results.map((r) => r.id),
    first.results.map((r) => r.id),
  );
  assert.equal(
    first.results.map((r) => r.id),
    [rowIdOf(batchId, 0), rowIdOf(batchId, 1)],
  );
  assert.is((await listAll(t.app, key, tableId)).length, 2);
});

test.run();
