import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { projectionAudit } from '../../../src/projection/audit.ts';
import { checkpoints } from '../../../src/projection/checkpoints.ts';
import { Projections } from '../../../src/projection/projections.ts';
import { ProjectionAdminError, retryProjection, skipEvent } from '../../../src/projection/repair-admin.ts';
import { projectionReports } from '../../../src/projection/status-admin.ts';
import { eventually } from '../../support/eventually.ts';
import {
  NOTE_WRITTEN,
  noteStream,
  notesProjection,
  poisonSwitch,
  snapshotNotes,
  writeNotes,
} from '../../support/rebuild-fixtures.ts';
import { closeStore, openStore, type StoreContext } from '../../support/store.ts';

interface Ctx extends StoreContext {
  projections: Projections;
}

const test = suite<Ctx>('poison events: retry and skip');
const projection = notesProjection();

test.before.each(async (ctx) => {
  poisonSwitch.armed = true;
  await openStore(ctx);
  ctx.projections = new Projections(ctx.store, ctx.db.pool, [projection], {
    repairPollMs: 20,
    batchSize: 25,
  });
  await ctx.projections.start();
});

test.after.each(async (ctx) => {
  poisonSwitch.armed = true;
  await closeStore(ctx);
});

/** 30 good notes, one poison note, 10 good notes after it; resolves once the projection stopped. */
async function injectPoison(ctx: Ctx): Promise<string> {
  await writeNotes(ctx.store, 30, { seed: 'before-' });
  const { position } = await ctx.store.append(noteStream('bad'), [
    { type: NOTE_WRITTEN, data: { noteId: 'bad', author: 'x', text: 'boom', poison: true } },
  ]);
  await writeNotes(ctx.store, 10, { seed: 'after-' });
  const [poison] = await ctx.store.readStream(noteStream('bad'));
  await eventually(
    'the projection to stop at the poison event',
    async () => (await checkpoints.get(ctx.db.pool, 'ops_notes'))?.state === 'failed',
  );
  const row = await checkpoints.get(ctx.db.pool, 'ops_notes');
  assert.is(row?.failedEventId, poison!.id);
  assert.match(row?.lastError ?? '', /poison note bad/);
  // Stopped right before it: everything earlier is applied, nothing later.
  assert.ok(row!.position.prepare < position.prepare);
  const [report] = await projectionReports(ctx.store, ctx.db.pool, [projection]);
  assert.is(report?.state, 'failed');
  assert.is(report?.failedEventId, poison!.id);
  assert.is(report?.lag.events, 11);
  return poison!.id;
}

const caughtUp = async (ctx: Ctx) => {
  const head = await ctx.store.head();
  const row = await checkpoints.get(ctx.db.pool, 'ops_notes');
  return row?.state !== 'failed' && row?.position.prepare === head.prepare;
};

test('retry after the cause is fixed applies the event and goes on; audited', async (ctx) => {
  const eventId = await injectPoison(ctx);
  assert.is(ctx.projections.runner('ops_notes').currentState, 'failed');
  poisonSwitch.armed = false;
  const retried = await retryProjection(ctx.db.pool, 'ops_notes', 'alice');
  assert.is(retried.eventId, eventId);
  await eventually('the runner to resume after the retry', () => caughtUp(ctx));
  const notes = (await snapshotNotes(ctx.db.pool)).notes.map((n) => n.id);
  assert.ok(notes.includes('bad'));
  assert.ok(notes.includes('after-9'));
  const [entry] = await projectionAudit.recent(ctx.db.pool, 'ops_notes', 1);
  assert.equal(
    { action: entry?.action, actor: entry?.actor, eventId: entry?.eventId },
    { action: 'retry', actor: 'alice', eventId },
  );
  assert.match(String(entry?.detail.error), /poison note bad/);
  const [report] = await projectionReports(ctx.store, ctx.db.pool, [projection]);
  assert.is(report?.state, 'running');
  assert.is(report?.audit[0]?.action, 'retry');
});

test('retry while the cause remains stops at the same event again', async (ctx) => {
  const eventId = await injectPoison(ctx);
  await retryProjection(ctx.db.pool, 'ops_notes', 'alice');
  await eventually(
    'the projection to fail again',
    async () =>
      (await projectionAudit.recent(ctx.db.pool, 'ops_notes', 1)).length === 1 &&
      (await checkpoints.get(ctx.db.pool, 'ops_notes'))?.state === 'failed',
  );
  assert.is((await checkpoints.get(ctx.db.pool, 'ops_notes'))?.failedEventId, eventId);
});

test('skip passes the poison event without applying it and goes on; audited', async (ctx) => {
  const eventId = await injectPoison(ctx);
  const { event } = await skipEvent(ctx.store, ctx.db.pool, projection, eventId, 'bob');
  assert.is(event.id, eventId);
  await eventually('the runner to resume after the skip', () => caughtUp(ctx));
  const notes = (await snapshotNotes(ctx.db.pool)).notes.map((n) => n.id);
  assert.not.ok(notes.includes('bad'));
  assert.ok(notes.includes('after-9'));
  const [entry] = await projectionAudit.recent(ctx.db.pool, 'ops_notes', 1);
  assert.equal(
    { action: entry?.action, actor: entry?.actor, eventId: entry?.eventId, stream: entry?.detail.stream },
    { action: 'skip', actor: 'bob', eventId, stream: noteStream('bad') },
  );
});

test('skip refuses any event but the one the projection stopped at; retry refuses a healthy one', async (ctx) => {
  await writeNotes(ctx.store, 3);
  await eventually('catch-up', () => caughtUp(ctx));
  try {
    await retryProjection(ctx.db.pool, 'ops_notes', 'alice');
    assert.unreachable('retry of a running projection');
  } catch (error) {
    assert.instance(error, ProjectionAdminError);
  }
  const eventId = await injectPoison(ctx);
  const [other] = await ctx.store.readStream(noteStream('after-1'));
  try {
    await skipEvent(ctx.store, ctx.db.pool, projection, other!.id, 'bob');
    assert.unreachable('skipped an event the projection is not stopped at');
  } catch (error) {
    assert.instance(error, ProjectionAdminError);
    assert.match((error as Error).message, new RegExp(eventId));
  }
  assert.is((await checkpoints.get(ctx.db.pool, 'ops_notes'))?.state, 'failed');
  assert.is((await projectionAudit.recent(ctx.db.pool, 'ops_notes')).length, 0);
});

test('a projection failed at start-up waits for the operator too', async (ctx) => {
  const eventId = await injectPoison(ctx);
  await ctx.projections.stop();
  ctx.projections = new Projections(ctx.store, ctx.db.pool, [projection], { repairPollMs: 20 });
  await ctx.projections.start();
  assert.is(ctx.projections.runner('ops_notes').currentState, 'failed');
  await skipEvent(ctx.store, ctx.db.pool, projection, eventId, 'bob');
  await eventually('the restarted runner to resume after the skip', () => caughtUp(ctx));
});

test.run();
