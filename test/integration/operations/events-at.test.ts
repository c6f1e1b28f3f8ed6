import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { columnStream } from '../../../src/domain/columns/column-state.ts';
import { NoReplayerError, stateAt } from '../../../src/history/state-at.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { runAdmin } from '../../support/cli.ts';
import { createColumn, createTable, startTablesApp } from '../../support/tables.ts';

interface Ctx {
  t: TestApp;
  stream: string;
  /** The column as GET returned it after creation and after each of the five PATCHes, with the event's time. */
  versions: { at: Date; column: Record<string, unknown> }[];
}

const test = suite<Ctx>('events at: a column patched five times, replayed at each time');

const PATCHES = [
  { label: 'Company name' },
  { config: { provider: 'llm', mode: 'basic' } },
  { autoRun: 'onInsert', isImportant: true },
  { position: 7.5, config: { mode: 'advanced', llmLane: 'very_fast' } },
  { label: 'Company (final)', config: { llmLane: null } },
];

test.before(async (ctx) => {
  ctx.t = await startTablesApp();
  const { apiKey } = await bootstrapAccount(ctx.t.app);
  const tableId = await createTable(ctx.t.app, apiKey);
  const created = await createColumn(ctx.t.app, apiKey, tableId, {
    label: 'Company',
    kind: 'enrichment',
    dataType: 'text',
  });
  ctx.stream = columnStream.name(tableId, created.id);
  const path = `/api/tables/${tableId}/columns/${created.id}`;
  const snapshots = [created];
  for (const body of PATCHES) {
    // Apart in time, so that each event has its own millisecond.
    await new Promise((r) => setTimeout(r, 5));
    const res = await call(ctx.t.app, 'PATCH', path, { headers: bearer(apiKey), body });
    assert.is(res.status, 200, JSON.stringify(res.body));
    snapshots.push(res.body);
  }
  const events = await ctx.t.deps.store.readStream(ctx.stream);
  assert.is(events.length, 6);
  ctx.versions = events.map((e, i) => ({ at: e.recordedAt, column: snapshots[i] }));
});

test.after(async (ctx) => {
  await ctx.t.close();
});

test('at each event time: the column as the API returned it then', async ({ t, stream, versions }) => {
  for (const [i, version] of versions.entries()) {
    const result = await stateAt(t.deps.store, service.registry, stream, version.at);
    assert.equal(result.state, version.column, `state after event ${i}`);
    assert.is(result.revision, BigInt(i));
    assert.is(result.eventsAfter, versions.length - 1 - i);
  }
  assert.is(versions.at(-1)?.column.label, 'Company (final)');
  assert.equal((versions.at(-1)!.column.config as Record<string, unknown>).llmLane, undefined);
});

test('between two events: the earlier state; before the first: nothing', async ({ t, stream, versions }) => {
  const justBefore = (d: Date) => new Date(d.getTime() - 1);
  for (let i = 1; i < versions.length; i++) {
    const result = await stateAt(t.deps.store, service.registry, stream, justBefore(versions[i]!.at));
    assert.equal(result.state, versions[i - 1]!.column);
  }
  const before = await stateAt(t.deps.store, service.registry, stream, justBefore(versions[0]!.at));
  assert.is(before.state, null);
  assert.is(before.revision, null);
  assert.is(before.eventsAfter, 6);
});

test('a stream category without a replayer is refused, naming the known ones', async ({ t }) => {
  try {
    await stateAt(t.deps.store, service.registry, 'nosuchcategory-1', new Date());
    assert.unreachable('replayed a category without a replayer');
  } catch (error) {
    assert.instance(error, NoReplayerError);
    assert.match((error as Error).message, /column/);
  }
});

test('stk admin events at / events read, over the same database', async ({ t, stream, versions }) => {
  const third = versions[3]!;
  const at = await runAdmin(t.db.url, ['events', 'at', stream, '--at', third.at.toISOString(), '--json']);
  assert.is(at.code, 0, at.stderr);
  const answer = JSON.parse(at.stdout);
  assert.equal(answer.state, third.column);
  assert.is(answer.revision, '3');
  const text = await runAdmin(t.db.url, ['events', 'at', stream, '--at', third.at.toISOString()]);
  assert.match(text.stdout, /revision 3/);
  const read = await runAdmin(t.db.url, ['events', 'read', stream, '--json']);
  assert.is(read.code, 0, read.stderr);
  assert.equal(
    JSON.parse(read.stdout).map((e: { type: string }) => e.type),
    ['ColumnCreated', 'ColumnPatched', 'ColumnPatched', 'ColumnPatched', 'ColumnPatched', 'ColumnPatched'],
  );
  const bad = await runAdmin(t.db.url, ['events', 'at', stream, '--at', 'yesterday']);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /ISO 8601/);
});

test.run();
