import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { comparePositions } from '../../../src/event-store/port.ts';
import { projectionAudit } from '../../../src/projection/audit.ts';
import { checkpoints } from '../../../src/projection/checkpoints.ts';
import { Projections } from '../../../src/projection/projections.ts';
import { RebuildBusyError, rebuildProjection } from '../../../src/projection/rebuild.ts';
import { rebuildRecords } from '../../../src/projection/rebuild-records.ts';
import { projectionReports } from '../../../src/projection/status-admin.ts';
import { eventually } from '../../support/eventually.ts';
import { freshBuild, notesProjection, snapshotNotes, writeNotes } from '../../support/rebuild-fixtures.ts';
import { closeStore, openStore, type StoreContext } from '../../support/store.ts';

type Ctx = StoreContext;

const test = suite<Ctx>('projection rebuild (blue/green)');

test.before.each(openStore);
test.after.each(closeStore);

const caughtUp = async (ctx: Ctx, name = 'ops_notes') => {
  const head = await ctx.store.head();
  const row = await checkpoints.get(ctx.db.pool, name);
  return row !== undefined && row.position.commit === head.commit && row.position.prepare === head.prepare;
};

const tableNames = async (ctx: Ctx) =>
  (
    await ctx.db.pool.query<{ relname: string }>(
      `SELECT relname FROM pg_class WHERE relname LIKE 'ops_note%' AND relkind IN ('r', 'i') ORDER BY relname`,
    )
  ).rows.map((r) => r.relname);

test('a rebuild while the live runner follows writes swaps in tables equal to a fresh build', async (ctx) => {
  const projection = notesProjection();
  ctx.projections = new Projections(ctx.store, ctx.db.pool, [projection], { batchSize: 50 });
  await ctx.projections.start();
  await writeNotes(ctx.store, 400);
  let writing = true;
  const writer = (async () => {
    let i = 0;
    while (writing) await writeNotes(ctx.store, 5, { seed: `w${i++}-`, notes: 3 });
  })();
  const phases: string[] = [];
  const result = await rebuildProjection(ctx.store, ctx.db.pool, projection, {
    actor: 'test',
    batchSize: 64,
    onProgress: async (p) => {
      if (phases.at(-1) === p.phase) return;
      phases.push(p.phase);
      if (p.phase !== 'swapping') return;
      // The live runner gets ahead of the shadow: the swap must apply the difference in its transaction.
      await writeNotes(ctx.store, 15, { seed: 'race-' });
      const target = await ctx.store.head();
      await eventually(
        'the live runner to pass the shadow',
        async () =>
          comparePositions((await checkpoints.get(ctx.db.pool, 'ops_notes'))!.position, target) >= 0,
      );
    },
  });
  writing = false;
  await writer;
  assert.is(result.outcome, 'swapped');
  assert.equal(phases, ['building', 'swapping', 'swapped']);
  await eventually('the live runner to follow the swapped tables', () => caughtUp(ctx));
  assert.equal(await snapshotNotes(ctx.db.pool), await freshBuild(ctx.store, ctx.db.pool, projection));
  // The swapped tables carry the logical names, indexes included; no shadow is left behind.
  assert.equal(await tableNames(ctx), [
    'ops_note_authors',
    'ops_note_authors_pkey',
    'ops_notes',
    'ops_notes_by_author',
    'ops_notes_pkey',
  ]);
  assert.is(await rebuildRecords.get(ctx.db.pool, 'ops_notes'), undefined);
  assert.is(await checkpoints.get(ctx.db.pool, 'ops_notes@rebuild'), undefined);
  const [entry] = await projectionAudit.recent(ctx.db.pool, 'ops_notes', 1);
  assert.is(entry?.action, 'rebuild');
  assert.is(entry?.actor, 'test');
  // The live runner goes on writing to the swapped tables.
  await writeNotes(ctx.store, 30, { seed: 'after-' });
  await eventually('the live runner after the swap', () => caughtUp(ctx));
  assert.equal(await snapshotNotes(ctx.db.pool), await freshBuild(ctx.store, ctx.db.pool, projection));
});

test('a second rebuild after a swap does not collide with the names the first left', async (ctx) => {
  const projection = notesProjection();
  await writeNotes(ctx.store, 120);
  for (let i = 0; i < 2; i++) {
    const result = await rebuildProjection(ctx.store, ctx.db.pool, projection, {
      actor: 'test',
      batchSize: 50,
    });
    assert.is(result.outcome, 'swapped');
  }
  assert.equal(await snapshotNotes(ctx.db.pool), await freshBuild(ctx.store, ctx.db.pool, projection));
  const actions = (await projectionAudit.recent(ctx.db.pool, 'ops_notes')).map((e) => e.action);
  assert.equal(actions, ['rebuild', 'rebuild_started', 'rebuild', 'rebuild_started']);
});

test('an interrupted rebuild resumes from its own checkpoint and finishes equal', async (ctx) => {
  const projection = notesProjection();
  await writeNotes(ctx.store, 300);
  const abort = new AbortController();
  let firstRun = 0;
  const first = await rebuildProjection(ctx.store, ctx.db.pool, projection, {
    actor: 'test',
    batchSize: 40,
    signal: abort.signal,
    onProgress: (p) => {
      firstRun = p.processed;
      if (p.processed >= 120) abort.abort();
    },
  });
  assert.is(first.outcome, 'interrupted');
  assert.ok(firstRun >= 120 && firstRun < 300);
  const statusBetween = await projectionReports(ctx.store, ctx.db.pool, [projection]);
  assert.is(statusBetween[0]?.rebuild?.active, false);
  assert.is(statusBetween[0]?.rebuild?.lag.events, 300 - first.processed);
  const second = await rebuildProjection(ctx.store, ctx.db.pool, projection, {
    actor: 'test',
    batchSize: 40,
  });
  assert.is(second.outcome, 'swapped');
  assert.ok(second.resumed);
  assert.is(second.processed, 300 - first.processed);
  assert.equal(await snapshotNotes(ctx.db.pool), await freshBuild(ctx.store, ctx.db.pool, projection));
});

test('one rebuild of a projection at a time', async (ctx) => {
  const projection = notesProjection();
  await writeNotes(ctx.store, 200);
  let second: Promise<unknown> | undefined;
  await rebuildProjection(ctx.store, ctx.db.pool, projection, {
    actor: 'test',
    batchSize: 20,
    onProgress: () => {
      second ??= rebuildProjection(ctx.store, ctx.db.pool, projection, { actor: 'other' }).then(
        () => 'ran',
        (e) => e,
      );
    },
  });
  assert.instance(await second, RebuildBusyError);
});

test('a version bump rebuilds at start-up; the old tables serve, untouched, until the swap', async (ctx) => {
  const v1 = notesProjection();
  ctx.projections = new Projections(ctx.store, ctx.db.pool, [v1], { repairPollMs: 20 });
  await ctx.projections.start();
  await writeNotes(ctx.store, 150);
  await eventually('v1 to catch up', () => caughtUp(ctx));
  await ctx.projections.stop();

  const v2 = notesProjection({ version: 2, extraColumn: true });
  ctx.projections = new Projections(ctx.store, ctx.db.pool, [v2], { repairPollMs: 20 });
  await ctx.projections.start();
  await eventually(
    'the version rebuild to swap',
    async () => (await checkpoints.get(ctx.db.pool, 'ops_notes'))?.version === 2,
  );
  const columns = await ctx.db.pool.query(
    `SELECT column_name FROM information_schema.columns WHERE table_name = 'ops_notes' AND column_name = 'text_length'`,
  );
  assert.is(columns.rowCount, 1);
  await writeNotes(ctx.store, 20, { seed: 'v2-' });
  await eventually('v2 to follow new events', () => caughtUp(ctx));
  const lengths = await ctx.db.pool.query(`SELECT count(*)::int AS n FROM ops_notes WHERE text_length = 0`);
  assert.is(lengths.rows[0].n, 0);
  const [entry] = await projectionAudit.recent(ctx.db.pool, 'ops_notes', 1);
  assert.equal(
    {
      action: entry?.action,
      actor: entry?.actor,
      from: entry?.detail.fromVersion,
      to: entry?.detail.toVersion,
    },
    { action: 'rebuild', actor: 'system:startup', from: 1, to: 2 },
  );
});

test('code older than the stored version applies nothing and leaves the projection to newer code', async (ctx) => {
  await writeNotes(ctx.store, 10);
  // Stored version 3 in the row, code version 2: this process must leave the tables alone.
  await ctx.db.pool.query(`INSERT INTO projection_checkpoints (name, version) VALUES ('ops_notes', 3)`);
  const v2 = notesProjection({ version: 2 });
  ctx.projections = new Projections(ctx.store, ctx.db.pool, [v2], { repairPollMs: 20 });
  await ctx.projections.start();
  await eventually('standby', async () => ctx.projections?.runner('ops_notes').currentState === 'standby');
  const { rows } = await ctx.db.pool.query('SELECT count(*)::int AS n FROM ops_notes');
  assert.is(rows[0].n, 0);
  assert.is((await checkpoints.get(ctx.db.pool, 'ops_notes'))?.eventsApplied, 0);
  // A process with the newer code takes the projection over: the older one let go of its lock.
  const newer = new Projections(ctx.store, ctx.db.pool, [notesProjection({ version: 3 })], {
    standbyRetryMs: 50,
  });
  await newer.start();
  try {
    await eventually('the newer code to take over', () => caughtUp(ctx));
    assert.is((await checkpoints.get(ctx.db.pool, 'ops_notes'))?.eventsApplied, 10);
    assert.is(ctx.projections?.runner('ops_notes').currentState, 'standby');
  } finally {
    await newer.stop();
  }
});

test.run();
