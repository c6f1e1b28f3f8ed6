import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { comparePositions, START } from '../../../src/event-store/port.ts';
import { BatchCommitter } from '../../../src/projection/batch-committer.ts';
import { checkpoints } from '../../../src/projection/checkpoints.ts';
import { ProjectionRunner } from '../../../src/projection/runner.ts';
import { eventually } from '../../support/eventually.ts';
import type { TestDatabase } from '../../support/postgres.ts';
import { closeStore, openStore, type StoreContext } from '../../support/store.ts';
import { counterProjection, IGNORED } from '../../support/test-projections.ts';

const test = suite<StoreContext>('projection runner: progress over events it does not handle');

test.before.each(openStore);
test.after.each(closeStore);

async function storedCheckpointReaches(db: TestDatabase, name: string, head: () => Promise<unknown>) {
  const target = (await head()) as { commit: bigint; prepare: bigint };
  return eventually(
    'the stored checkpoint to reach the head',
    async () => {
      const row = await checkpoints.get(db.pool, name);
      return row && comparePositions(row.position, target) >= 0 ? row : undefined;
    },
    5_000,
  );
}

test('a quiet log after unhandled events still gets its checkpoint stored, state running', async ({
  db,
  store,
}) => {
  const runner = new ProjectionRunner(counterProjection('idle'), store, db.pool);
  await runner.start();
  try {
    for (let i = 0; i < 5; i++) await store.append(`noise-${i}`, [{ type: IGNORED, data: { note: 'n' } }]);
    const row = await storedCheckpointReaches(db, 'idle', () => store.head());
    assert.is(row.state, 'running');
    assert.is(row.eventsApplied, 0);
  } finally {
    await runner.stop();
  }
});

test('stopping stores the position reached, so a restart does not read those events again', async ({
  db,
  store,
}) => {
  const runner = new ProjectionRunner(counterProjection('idle'), store, db.pool, { standbyRetryMs: 50 });
  await runner.start();
  const { position } = await store.append('noise', [{ type: IGNORED, data: { note: 'n' } }]);
  await runner.waitFor(position, 30_000);
  await runner.stop();
  const row = await checkpoints.get(db.pool, 'idle');
  assert.ok(row && comparePositions(row.position, position) === 0, 'checkpoint stored at stop');
});

test('recording idle progress never moves the position back over events skipped meanwhile', async ({
  db,
  store,
}) => {
  const projection = counterProjection('idle_race');
  const row = await checkpoints.ensure(db.pool, projection.name, projection.version);
  // A frozen clock: every batch of unhandled events falls within the idle window and moves on in memory.
  const committer = new BatchCommitter(projection, db.pool, {
    isFailed: () => false,
    markFailed: () => {},
    now: () => 0,
  });
  committer.markCommitted(row.position);
  for (const name of ['noise-a', 'noise-b'])
    await store.append(name, [{ type: IGNORED, data: { note: 'n' } }]);
  const [first, second] = await store.readAll({ from: START, limit: 10 });
  assert.ok(await committer.applyBatch([first!]));
  // The idle write starts at the first event; the second is skipped while it is under way.
  const recording = committer.recordIdleProgress();
  assert.ok(await committer.applyBatch([second!]));
  await recording;
  assert.is(comparePositions(committer.position, second!.position), 0, 'the position went back');
  await committer.recordIdleProgress();
  await committer.settle();
  const stored = await checkpoints.get(db.pool, projection.name);
  assert.is(comparePositions(stored!.position, second!.position), 0, 'the stored checkpoint');
});

test.run();
