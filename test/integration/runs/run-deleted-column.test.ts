import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { insertRows } from '../../support/rows.ts';
import {
  type CountingTarget,
  httpColumnTable,
  runEnded,
  startRunsApp,
  startTarget,
} from '../../support/runs.ts';

/*
 * Deleting a column, or its table, while the column runs stops the run: no row starts after the
 * delete's answer (the rows in their calls finish), the rest are skipped and refunded.
 */
const test = suite<{ t: TestApp; target: CountingTarget; key: string }>(
  'column runs: a deleted column stops its run',
);

test.before.each(async (ctx) => {
  ctx.target = await startTarget();
  ctx.t = await startRunsApp();
  ctx.key = (await bootstrapAccount(ctx.t.app)).apiKey;
});
test.after.each(async (ctx) => {
  ctx.target.release();
  await ctx.t.close();
  await ctx.target.close();
});

for (const deleted of ['column', 'table'] as const) {
  test(`deleting the ${deleted} stops the run; only the rows in flight were called`, async (ctx) => {
    const { tableId, columns } = await httpColumnTable(ctx.t.app, ctx.key, ctx.target.url, 4);
    await insertRows(
      ctx.t.app,
      ctx.key,
      tableId,
      Array.from({ length: 20 }, (_, i) => ({ n: `d${i}` })),
    );
    ctx.target.hold();
    const columnPath = `/api/tables/${tableId}/columns/${columns.result.id}`;
    const started = await call(ctx.t.app, 'POST', `${columnPath}/run`, {
      headers: bearer(ctx.key),
      body: { scope: 'all' },
    });
    assert.is(started.status, 202, JSON.stringify(started.body));
    await eventually('rows in flight', () => ctx.target.inFlight() === 4);
    const gone = await call(
      ctx.t.app,
      'DELETE',
      deleted === 'column' ? columnPath : `/api/tables/${tableId}`,
      {
        headers: bearer(ctx.key),
      },
    );
    assert.is(gone.status, 204, JSON.stringify(gone.body));
    ctx.target.release();
    const ended = await runEnded(ctx.t.app, ctx.key, started.body.id);
    assert.is(ended.status, 'stopped');
    assert.equal([ended.counts.succeeded, ended.counts.skipped], [4, 16]);
    assert.equal(ended.credits, { reserved: 20, charged: 4, refunded: 16 });
    const calls = [...ctx.target.counts.keys()].filter((k) => k.startsWith(`${started.body.id}:`));
    assert.is(calls.length, 4);
  });
}

test.run();
