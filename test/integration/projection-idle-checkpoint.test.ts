import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { comparePositions } from '../../src/event-store/port.ts';
import { PostgresEventStore } from '../../src/event-store/postgres.ts';
import { checkpoints } from '../../src/projection/checkpoints.ts';
import { ProjectionRunner } from '../../src/projection/runner.ts';
import { freshDatabase, type TestDatabase } from '../support/postgres.ts';
import { counterProjection, IGNORED } from '../support/test-projections.ts';

const test = suite<{ db: TestDatabase; store: PostgresEventStore }>(
  'projection runner: progress over events it does not handle',
);

test.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.store = new PostgresEventStore(ctx.db.pool);
});
test.after.each(async (ctx) => {
  await ctx.store.close();
  await ctx.db.drop();
});

async function storedCheckpointReaches(db: TestDatabase, name: string, head: () => Promise<unknown>) {
  const target = (await head()) as { commit: bigint; prepare: bigint };
  for (let i = 0; i < 100; i++) {
    const row = await checkpoints.get(db.pool, name);
    if (row && comparePositions(row.position, target) >= 0) return row;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the stored checkpoint never reached the head');
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
  await runner.waitFor(position, 5000);
  await runner.stop();
  const row = await checkpoints.get(db.pool, 'idle');
  assert.ok(row && comparePositions(row.position, position) === 0, 'checkpoint stored at stop');
});

test.run();
