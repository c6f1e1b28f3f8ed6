import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PROVIDER_CREDITS } from '../../../src/credits/prices.ts';
import { STARTER_CREDITS } from '../../../src/domain/accounts/events.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { createColumns, insertRows, listAll } from '../../support/rows.ts';
import {
  type CountingTarget,
  httpColumnTable,
  runEnded,
  runSettled,
  startRunsApp,
  startTarget,
} from '../../support/runs.ts';
import { createTable } from '../../support/tables.ts';

interface Ctx {
  t: TestApp;
  key: string;
  target: CountingTarget;
}

const test = suite<Ctx>('column runs: start, watch, stop, cells, credits');

test.before(async (ctx) => {
  ctx.target = await startTarget({ fail: new Set(['3']) });
  ctx.t = await startRunsApp();
  ctx.key = (await bootstrapAccount(ctx.t.app)).apiKey;
});
test.after(async (ctx) => {
  await ctx.t.close();
  await ctx.target.close();
});

async function seeded(ctx: Ctx, count: number, prefix = '') {
  const { tableId, columns } = await httpColumnTable(ctx.t.app, ctx.key, ctx.target.url);
  const rows = await insertRows(
    ctx.t.app,
    ctx.key,
    tableId,
    Array.from({ length: count }, (_, i) => ({ n: `${prefix}${i + 1}` })),
  );
  const run = (body: object = { scope: 'all' }, headers: Record<string, string> = {}) =>
    call(ctx.t.app, 'POST', `/api/tables/${tableId}/columns/${columns.result.id}/run`, {
      headers: { ...bearer(ctx.key), ...headers },
      body,
    });
  return { tableId, columns, rows, run };
}

const balance = async (ctx: Ctx) =>
  (await call(ctx.t.app, 'GET', '/api/credits/ledger?limit=1', { headers: bearer(ctx.key) })).body.data[0]
    ?.balanceAfter;

test('a run: 202 with Location, rows queued -> done | error, values in the cells, credits settled', async (ctx) => {
  const before = await balance(ctx);
  const { tableId, columns, rows, run } = await seeded(ctx, 5);
  const started = await run();
  assert.is(started.status, 202, JSON.stringify(started.body));
  assert.is(started.headers.location, `/api/runs/${started.body.id}`);
  assert.is(started.body.counts.total, 5);
  assert.equal(started.body.credits.reserved, 5 * PROVIDER_CREDITS.http_request);
  const ended = await runSettled(ctx.t, ctx.key, started.body.id);
  assert.is(ended.status, 'partially_succeeded');
  assert.equal(ended.counts, { total: 5, queued: 0, running: 0, succeeded: 4, failed: 1, skipped: 0 });
  // Every row that reached the provider is charged (the failed one too); nothing is left reserved.
  assert.equal(ended.credits, { reserved: 5, charged: 5, refunded: 0 });
  assert.ok(ended.startedAt && ended.finishedAt);

  const listed = await listAll(ctx.t.app, ctx.key, tableId);
  for (const row of listed) {
    const n = row.cells.n;
    const status = row.cellStatus.result;
    assert.is(status.runId, started.body.id);
    if (n === '3') {
      assert.is(status.status, 'error');
      assert.match(status.error, /http_error/);
      assert.is(row.cells.result, undefined);
    } else {
      assert.is(status.status, 'done');
      assert.equal(row.cells.result, { n, key: `${started.body.id}:${row.id}` });
    }
  }
  const failed = await call(ctx.t.app, 'GET', `/api/runs/${started.body.id}/rows?status=failed`, {
    headers: bearer(ctx.key),
  });
  assert.is(failed.body.data.length, 1);
  assert.is(failed.body.data[0].rowId, rows[2].id);
  assert.is(failed.body.data[0].error.code, 'http_error');
  assert.is(failed.body.data[0].httpStatus, 500);
  // Exactly one call per row, each with its own key.
  for (const row of rows) assert.is(ctx.target.counts.get(`${started.body.id}:${row.id}`), 1);
  assert.is(await balance(ctx), before - 5);
  const column = await call(ctx.t.app, 'GET', `/api/tables/${tableId}/columns/${columns.result.id}`, {
    headers: bearer(ctx.key),
  });
  assert.is(column.body.status, 'idle');
  const list = await call(ctx.t.app, 'GET', `/api/tables/${tableId}/runs`, { headers: bearer(ctx.key) });
  assert.equal(
    list.body.data.map((r: { id: string }) => r.id),
    [started.body.id],
  );
});

test('a second run of a running column is 409 run_in_progress; stop skips what has not started', async (ctx) => {
  const { tableId, columns, run } = await seeded(ctx, 30, 's');
  ctx.target.hold();
  try {
    const started = await run();
    assert.is(started.status, 202);
    const runId = started.body.id;
    // The default concurrency (8) holds across the run: 8 rows in flight, the rest wait.
    await eventually('rows in flight', () => ctx.target.inFlight() === 8);
    const column = await call(ctx.t.app, 'GET', `/api/tables/${tableId}/columns/${columns.result.id}`, {
      headers: bearer(ctx.key),
    });
    assert.is(column.body.status, 'running');
    const second = await run();
    assert.is(second.status, 409);
    assert.is(second.body.code, 'run_in_progress');
    assert.is(second.body.runId, runId);
    const stopped = await call(
      ctx.t.app,
      'POST',
      `/api/tables/${tableId}/columns/${columns.result.id}/stop`,
      {
        headers: bearer(ctx.key),
      },
    );
    assert.is(stopped.status, 200, JSON.stringify(stopped.body));
    assert.ok(['stopping', 'stopped'].includes(stopped.body.status));
    ctx.target.release();
    const ended = await runSettled(ctx.t, ctx.key, runId);
    assert.is(ended.status, 'stopped');
    assert.is(ended.counts.succeeded, 8);
    assert.is(ended.counts.skipped, 22);
    assert.equal(ended.credits, { reserved: 30, charged: 8, refunded: 22 });
    // No row started after the stop's answer: only the 8 in flight reached the target.
    const calls = [...ctx.target.counts.keys()].filter((k) => k.startsWith(`${runId}:`));
    assert.is(calls.length, 8);
    const again = await call(ctx.t.app, 'POST', `/api/runs/${runId}/stop`, { headers: bearer(ctx.key) });
    assert.is(again.status, 200);
    assert.is(again.body.status, 'stopped');
    const skipped = await listAll(ctx.t.app, ctx.key, tableId);
    assert.is(skipped.filter((r) => r.cellStatus.result.status === 'skipped').length, 22);
    // The column runs again once its run has ended.
    const next = await run();
    assert.is(next.status, 202);
    await runEnded(ctx.t.app, ctx.key, next.body.id);
  } finally {
    ctx.target.release();
  }
});

test('Idempotency-Key: the same start twice is one run', async (ctx) => {
  const { run } = await seeded(ctx, 2);
  const first = await run({ scope: 'all' }, { 'idempotency-key': 'start-1' });
  const second = await run({ scope: 'all' }, { 'idempotency-key': 'start-1' });
  assert.is(first.status, 202);
  assert.is(second.status, 202);
  assert.is(second.body.id, first.body.id);
  assert.is(second.headers.location, first.headers.location);
  await runEnded(ctx.t.app, ctx.key, first.body.id);
});

test('credits: 402 when not one row is covered; a partial balance runs what it covers', async (ctx) => {
  const poor = await bootstrapAccount(ctx.t.app);
  const key = poor.apiKey;
  const tableId = await createTable(ctx.t.app, key);
  const columns = await createColumns(ctx.t.app, key, tableId, {
    n: 'text',
    result: {
      dataType: 'json',
      kind: 'enrichment',
      config: { provider: 'http_request', method: 'GET', url: `${ctx.target.url}/item?n={{n}}` },
    },
  });
  await insertRows(
    ctx.t.app,
    key,
    tableId,
    Array.from({ length: STARTER_CREDITS + 3 }, (_, i) => ({ n: `p${i}` })),
  );
  const path = `/api/tables/${tableId}/columns/${columns.result.id}/run`;
  const started = await call(ctx.t.app, 'POST', path, { headers: bearer(key), body: { scope: 'all' } });
  assert.is(started.status, 202, JSON.stringify(started.body));
  const ended = await runEnded(ctx.t.app, key, started.body.id);
  assert.is(ended.status, 'partially_succeeded');
  assert.equal(ended.counts.succeeded, STARTER_CREDITS);
  assert.equal(ended.counts.skipped, 3);
  const unfunded = await call(ctx.t.app, 'GET', `/api/runs/${started.body.id}/rows?status=skipped`, {
    headers: bearer(key),
  });
  assert.equal(
    unfunded.body.data.map((r: { error: { code: string } }) => r.error.code),
    ['insufficient_credits', 'insufficient_credits', 'insufficient_credits'],
  );
  // Their cells say so too: skipped by this run, with the reason.
  const unfundedIds = new Set(unfunded.body.data.map((r: { rowId: string }) => r.rowId));
  const cells = await eventually('the unfunded cells marked', async () => {
    const rows = (await listAll(ctx.t.app, key, tableId)).filter((r) => unfundedIds.has(r.id));
    return rows.every((r) => r.cellStatus.result?.status === 'skipped') ? rows : undefined;
  });
  assert.equal(
    cells.map((r) => [r.cellStatus.result?.status, r.cellStatus.result?.runId, r.cellStatus.result?.error]),
    Array(3).fill([
      'skipped',
      started.body.id,
      'insufficient_credits: the reservation did not cover this row',
    ]),
  );
  const refused = await call(ctx.t.app, 'POST', path, { headers: bearer(key), body: { scope: 'all' } });
  assert.is(refused.status, 402, JSON.stringify(refused.body));
  assert.is(refused.body.code, 'insufficient_credits');
  // The refusal released the column: nothing is held by it.
  const ledger = await call(ctx.t.app, 'GET', '/api/credits/ledger', { headers: bearer(key) });
  assert.equal(
    ledger.body.data.map((e: { kind: string; amount: number; balanceAfter: number }) => [
      e.kind,
      e.amount,
      e.balanceAfter,
    ]),
    [
      ['charge', STARTER_CREDITS, 0],
      ['reservation', STARTER_CREDITS, 0],
      ['grant', STARTER_CREDITS, STARTER_CREDITS],
    ],
  );
});

test('bad input is a 4xx problem naming the field; unknown and foreign runs are 404 and 403', async (ctx) => {
  const { run } = await seeded(ctx, 1);
  const bad = await run({ scope: 'selected' });
  assert.is(bad.status, 400);
  assert.ok(bad.body.errors.some((e: { path: string }) => e.path.includes('rowIds')));
  const unknown = await call(ctx.t.app, 'GET', '/api/runs/run_00000000000000000000', {
    headers: bearer(ctx.key),
  });
  assert.is(unknown.status, 404);
  const started = await run();
  const other = (await bootstrapAccount(ctx.t.app)).apiKey;
  const foreign = await call(ctx.t.app, 'GET', `/api/runs/${started.body.id}`, { headers: bearer(other) });
  assert.is(foreign.status, 403);
  await runEnded(ctx.t.app, ctx.key, started.body.id);
});

test.run();
