import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { autorunReactor } from '../../../app/features/autorun.ts';
import { checkpoints } from '../../../src/projection/checkpoints.ts';
import { Projections } from '../../../src/projection/projections.ts';
import { RebuildRefusedError, rebuildProjection } from '../../../src/projection/rebuild.ts';
import type { Projection } from '../../../src/projection/types.ts';
import { eventually } from '../../support/eventually.ts';
import { NOTE_WRITTEN, writeNotes } from '../../support/rebuild-fixtures.ts';
import { closeStore, openStore, type StoreContext } from '../../support/store.ts';

type Ctx = StoreContext;

const test = suite<Ctx>('projection rebuild of a reactor (work already enqueued is not enqueued again)');

test.before.each(openStore);
test.after.each(closeStore);

const KIND = 'ops-note-work';

/** A reactor: one work item per note written, its id the event's (as the real reactors make them). */
const noteReactor: Projection = {
  name: 'ops_note_reactor',
  version: 1,
  enqueues: [KIND],
  handles: [NOTE_WRITTEN],
  tables: { ops_note_reactor_seen: (t) => [`CREATE TABLE ${t} (event_id text PRIMARY KEY)`] },
  async apply(events, { tx, table, enqueue }) {
    for (const event of events)
      await tx.query(`INSERT INTO ${table('ops_note_reactor_seen')} VALUES ($1)`, [event.id]);
    await enqueue(
      events.map((e) => ({ id: `${KIND}:${e.id}`, kind: KIND, organizationId: 'org_test', payload: {} })),
    );
  },
};

const itemIds = async (ctx: Ctx) =>
  (
    await ctx.db.pool.query<{ id: string }>('SELECT id FROM work_items WHERE kind = $1 ORDER BY id', [KIND])
  ).rows.map((r) => r.id);

const notesWritten = async (ctx: Ctx) =>
  (await ctx.store.readAll({ limit: 10_000 })).filter((e) => e.type === NOTE_WRITTEN);

/** The live reactor applies everything there is, then its settled items are swept (as after 30 days). */
async function reactedAndSwept(ctx: Ctx): Promise<number> {
  ctx.projections = new Projections(ctx.store, ctx.db.pool, [noteReactor], { batchSize: 20 });
  await ctx.projections.start();
  await writeNotes(ctx.store, 60);
  const written = (await notesWritten(ctx)).length;
  await eventually(
    'the live reactor to enqueue every note',
    async () => (await itemIds(ctx)).length === written,
  );
  await ctx.db.pool.query('DELETE FROM work_items WHERE kind = $1', [KIND]);
  return written;
}

test('a rebuild enqueues nothing for events the live reactor applied, even once their items are swept', async (ctx) => {
  await reactedAndSwept(ctx);
  const result = await rebuildProjection(ctx.store, ctx.db.pool, noteReactor, {
    actor: 'test',
    batchSize: 16,
  });
  assert.is(result.outcome, 'swapped');
  assert.equal(await itemIds(ctx), []);
  // The swapped tables hold every event all the same, and the live reactor goes on enqueuing new ones.
  const { rows } = await ctx.db.pool.query('SELECT count(*)::int AS n FROM ops_note_reactor_seen');
  assert.is(rows[0].n, (await notesWritten(ctx)).length);
  await writeNotes(ctx.store, 5, { seed: 'after-' });
  await eventually('the live reactor after the swap', async () => (await itemIds(ctx)).length === 5);
});

test('events past the live checkpoint (the live reactor stopped) are enqueued by the rebuild, once', async (ctx) => {
  const before = await reactedAndSwept(ctx);
  await ctx.projections!.stop();
  ctx.projections = undefined;
  const live = (await checkpoints.get(ctx.db.pool, noteReactor.name))!.position;
  await writeNotes(ctx.store, 10, { seed: 'late-', notes: 10 });
  const late = (await notesWritten(ctx)).slice(before);
  assert.ok(late.length > 0 && late.every((e) => e.position.commit > live.commit));
  const result = await rebuildProjection(ctx.store, ctx.db.pool, noteReactor, {
    actor: 'test',
    batchSize: 16,
  });
  assert.is(result.outcome, 'swapped');
  assert.equal(await itemIds(ctx), late.map((e) => `${KIND}:${e.id}`).sort());
});

test('a projection that keeps state outside the log (autorun) refuses a rebuild, naming why', async (ctx) => {
  try {
    await rebuildProjection(ctx.store, ctx.db.pool, autorunReactor, { actor: 'test' });
    assert.unreachable('the rebuild ran');
  } catch (error) {
    assert.instance(error, RebuildRefusedError);
    assert.match(
      (error as Error).message,
      /autorun cannot be rebuilt: the auto-run worker empties its pending rows/,
    );
  }
  const { rows } = await ctx.db.pool.query(`SELECT count(*)::int AS n FROM projection_rebuilds`);
  assert.is(rows[0].n, 0, 'nothing of a rebuild was begun');
});

test.run();
