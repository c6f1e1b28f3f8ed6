import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { columnsProjection } from '../../../projections/columns/columns.ts';
import { tablesProjection } from '../../../projections/tables/tables.ts';
import { columnStream } from '../../../src/domain/columns/column-state.ts';
import { checkpoints } from '../../../src/projection/checkpoints.ts';
import { rebuildProjection } from '../../../src/projection/rebuild.ts';
import { bearer, bootstrapAccount } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { freshBuildRows, tableRows } from '../../support/rebuild-fixtures.ts';
import { createColumn, createTable, startTablesApp } from '../../support/tables.ts';

const CLIENTS = 4;
const COLUMNS_PER_CLIENT = 3;
/** History written straight to the log before the rebuild, so that the rebuild has work to do. */
const SEEDED_PATCHES = 3000;

const test = suite<{ t: TestApp }>('rebuild under load: 4 HTTP clients reading and writing throughout');

test.before(async (ctx) => {
  ctx.t = await startTablesApp();
});
test.after(async (ctx) => {
  await ctx.t.close();
});

interface Failure {
  what: string;
  status?: number;
  detail: string;
}

test('zero failed requests, read-your-writes kept, and a read model equal to a fresh build', async ({
  t,
}) => {
  const { apiKey } = await bootstrapAccount(t.url);
  const tableId = await createTable(t.url, apiKey);
  const columns: string[][] = [];
  for (let c = 0; c < CLIENTS; c++) {
    columns.push([]);
    for (let i = 0; i < COLUMNS_PER_CLIENT; i++)
      columns[c]!.push(
        (
          await createColumn(t.url, apiKey, tableId, {
            label: `c${c} col ${i}`,
            kind: 'input',
            dataType: 'text',
          })
        ).id,
      );
  }
  const all = columns.flat();
  for (let i = 0; i < SEEDED_PATCHES; i += 100) {
    const columnId = all[(i / 100) % all.length]!;
    await t.deps.store.append(
      columnStream.name(tableId, columnId),
      Array.from({ length: 100 }, (_, j) => ({
        type: 'ColumnPatched',
        data: { tableId, columnId, changes: { position: 1000 + i + j } },
      })),
    );
  }

  // The clients' writes wait for their own PATCH to show: let the live runner take in the history first.
  const seeded = await t.deps.store.head();
  await eventually(
    'the live runner to apply the seeded history',
    async () => (await checkpoints.get(t.db.pool, 'columns'))?.position.prepare === seeded.prepare,
    60_000,
  );

  const headers = { ...bearer(apiKey), 'content-type': 'application/json' };
  const failures: Failure[] = [];
  let requests = 0;
  let duringRebuild = 0;
  let rebuilding = false;
  let running = true;
  const request = async (what: string, path: string, init: RequestInit = {}) => {
    requests++;
    if (rebuilding) duringRebuild++;
    try {
      const res = await fetch(`${t.url}${path}`, { ...init, headers });
      const body = await res.json();
      if (!res.ok) failures.push({ what, status: res.status, detail: JSON.stringify(body) });
      return res.ok ? body : undefined;
    } catch (error) {
      failures.push({ what, detail: String(error) });
      return undefined;
    }
  };
  const client = async (c: number) => {
    for (let n = 0; running; n++) {
      const columnId = columns[c]![n % COLUMNS_PER_CLIENT]!;
      const path = `/api/tables/${tableId}/columns/${columnId}`;
      const label = `c${c} write ${n}`;
      // Each PATCH adds a config key of its own: an event lost by the swap would leave a key missing for good.
      const body = JSON.stringify({ label, config: { [`w${n}`]: n } });
      const patched = await request('PATCH', path, { method: 'PATCH', body });
      if (patched && patched.label !== label) failures.push({ what: 'PATCH answer', detail: patched.label });
      // This client alone writes this column: its GET must show its own PATCH (read-your-writes).
      const read = await request('GET column', path);
      if (read && read.label !== label)
        failures.push({ what: 'GET after PATCH', detail: `${read.label} != ${label}` });
      const list = await request('GET columns', `/api/tables/${tableId}/columns`);
      if (list && list.length !== all.length)
        failures.push({ what: 'GET columns', detail: `${list.length} columns` });
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
  await eventually('the clients to get going', async () => requests > 20);

  rebuilding = true;
  const results = [];
  for (const projection of [columnsProjection, tablesProjection])
    results.push(
      await rebuildProjection(t.deps.store, t.db.pool, projection, { actor: 'test', batchSize: 50 }),
    );
  rebuilding = false;
  const after = requests;
  await eventually('requests after the swap', async () => requests > after + 20);
  running = false;
  await Promise.all(clients);

  assert.equal(
    results.map((r) => r.outcome),
    ['swapped', 'swapped'],
  );
  assert.ok(duringRebuild > 0, 'no request ran during the rebuild');
  assert.equal(failures, [], `${failures.length} of ${requests} requests failed`);
  const head = await t.deps.store.head();
  await eventually(
    'the live runner to catch up',
    async () => (await checkpoints.get(t.db.pool, 'columns'))?.position.prepare === head.prepare,
  );
  for (const projection of [columnsProjection, tablesProjection])
    assert.equal(
      await tableRows(t.db.pool, projection),
      await freshBuildRows(t.deps.store, t.db.pool, projection),
      `${projection.name} differs from a fresh build`,
    );
});

test.run();
