import { tap } from 'rxjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { comparePositions } from '../../../src/event-store/port.ts';
import { ProjectionRunner } from '../../../src/projection/runner.ts';
import type { Projection } from '../../../src/projection/types.ts';
import { eventually } from '../../support/eventually.ts';
import { closeStore, openStore, type StoreContext } from '../../support/store.ts';
import {
  appendMany,
  buildFromScratch,
  checkpointOf,
  counterProjection,
  countsFromLog,
  handledCount,
  readModel,
  testEvent,
} from '../../support/test-projections.ts';

const test = suite<StoreContext>('projection runner');

test.before.each(openStore);
test.after.each(closeStore);

test('each batch commits with its checkpoint: every snapshot shows them agreeing', async ({ db, store }) => {
  await appendMany(store, 3000, { perAppend: 50 });
  const total = await handledCount(db.pool);
  const runner = new ProjectionRunner(counterProjection('snap', { delayMs: 2 }), store, db.pool, {
    batchSize: 50,
  });
  await runner.start();
  let midway = 0;
  const client = await db.pool.connect();
  try {
    for (;;) {
      // One snapshot for the checkpoint and the rows: a batch committed without its checkpoint (or
      // the reverse) would show as a mismatch here.
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      const cp = await client.query(
        `SELECT events_applied::int AS n FROM projection_checkpoints WHERE name = 'snap'`,
      );
      const rows = await client.query('SELECT count(*)::int AS n FROM snap_applied');
      const sums = await client.query('SELECT coalesce(sum(bumps), 0)::int AS n FROM snap_counts');
      await client.query('COMMIT');
      const applied = cp.rows[0]?.n ?? 0;
      assert.is(rows.rows[0].n, applied, 'log rows and checkpoint disagree');
      assert.is(sums.rows[0].n, applied, 'counts and checkpoint disagree');
      if (applied > 0 && applied < total) midway++;
      if (applied === total) break;
    }
  } finally {
    client.release();
    await runner.stop();
  }
  assert.ok(midway > 0, 'never observed a state between batches');
});

test('the read model equals one built from scratch, and the counts the log implies', async ({
  db,
  store,
}) => {
  const runner = new ProjectionRunner(counterProjection('live'), store, db.pool, { batchSize: 100 });
  await runner.start();
  // History, then live appends from concurrent writers while the runner follows.
  await appendMany(store, 1000, { perAppend: 25 });
  await appendMany(store, 1500, { perAppend: 5, writers: 6 });
  await runner.waitFor(await store.head(), 30_000);
  await runner.stop();

  const live = await readModel(db.pool, 'live');
  const scratch = await buildFromScratch(store, db.pool, 'scratch');
  const handled = await handledCount(db.pool);
  assert.equal(live, scratch);
  assert.equal(live.counts, await countsFromLog(db.pool));
  assert.is(live.applied.length, handled);
  assert.ok(
    live.applied.every((r) => r.times === 1),
    'an event was applied twice',
  );
  assert.is((await checkpointOf(db.pool, 'live'))?.events_applied, handled);
});

test('live: an idle runner takes what arrives at once; what comes during a batch is the next one', async ({
  db,
  store,
}) => {
  const counter = counterProjection('gated');
  const batches: number[] = [];
  let gate: Promise<void> = Promise.resolve();
  let open = () => {};
  const gated: Projection = {
    ...counter,
    async apply(events, ctx) {
      batches.push(events.length);
      await gate;
      await counter.apply(events, ctx);
    },
  };
  // The events the live tail has handed the runner: the thirty must all be in its hands before the
  // batch under way ends (the tail reads on its own schedule, which a loaded machine stretches).
  let delivered = 0;
  const counted = new Proxy(store, {
    get: (target, key) =>
      key === 'subscribeAll'
        ? (from: Parameters<typeof store.subscribeAll>[0]) =>
            target.subscribeAll(from).pipe(tap((e) => e.stream === 'counter-gated' && delivered++))
        : ((v) => (typeof v === 'function' ? v.bind(target) : v))(Reflect.get(target, key)),
  });
  const runner = new ProjectionRunner(gated, counted, db.pool);
  await runner.start();
  try {
    await eventually('the runner to follow live', () => runner.currentState === 'running');
    const before = delivered;
    gate = new Promise((resolve) => {
      open = resolve;
    });
    const bump = (i: number) => store.append('counter-gated', [testEvent(i, Number.MAX_SAFE_INTEGER)]);
    await bump(0);
    await eventually('the first batch to be under way', () => batches.length === 1);
    // Thirty appends, one by one, while that batch is held open: the tail hands them over as they come,
    // and they wait for the batch under way, to make one batch after it, not thirty.
    for (let i = 1; i <= 30; i++) await bump(i);
    await eventually('the thirty handed to the runner', () => delivered - before >= 31);
    open();
    await runner.waitFor(await store.head(), 10_000);
    // And one more once the runner is idle again: it must not sit in a queue nobody drains.
    const last = await bump(31);
    await runner.waitFor(last.position, 10_000);
    assert.equal(batches, [1, 30, 1]);
    assert.is((await checkpointOf(db.pool, 'gated'))?.events_applied, 32);
  } finally {
    open();
    await runner.stop();
  }
});

test('two runners started at once: one runs, one stands by, each event is applied once', async ({
  db,
  store,
}) => {
  const a = new ProjectionRunner(counterProjection('duo'), store, db.pool, {
    batchSize: 50,
    standbyRetryMs: 20,
  });
  const b = new ProjectionRunner(counterProjection('duo'), store, db.pool, {
    batchSize: 50,
    standbyRetryMs: 20,
  });
  const writing = appendMany(store, 2000, { perAppend: 10, writers: 4 });
  await Promise.all([a.start(), b.start()]);
  const [active, standby] = b.currentState === 'standby' ? [a, b] : [b, a];
  assert.is(standby.currentState, 'standby');
  assert.is.not(active.currentState, 'standby');
  await writing;
  await standby.waitFor(await store.head(), 30_000);

  // The active runner goes away; the standby takes over from the checkpoint.
  await active.stop();
  await appendMany(store, 500, { perAppend: 10, prefix: 'later' });
  await eventually('the standby to take over', () => standby.currentState !== 'standby');
  await standby.waitFor(await store.head(), 30_000);
  await standby.stop();

  const model = await readModel(db.pool, 'duo');
  const handled = await handledCount(db.pool);
  assert.is(model.applied.length, handled);
  assert.ok(
    model.applied.every((r) => r.times === 1),
    'an event was applied twice',
  );
  assert.equal(model.counts, await countsFromLog(db.pool));
  assert.is((await checkpointOf(db.pool, 'duo'))?.events_applied, handled);
});

test('waitFor resolves once the event is applied and times out short of it', async ({ db, store }) => {
  const active = new ProjectionRunner(counterProjection('wait'), store, db.pool, { standbyRetryMs: 20 });
  const standby = new ProjectionRunner(counterProjection('wait'), store, db.pool, { standbyRetryMs: 20 });
  await active.start();
  await standby.start();
  assert.is(standby.currentState, 'standby');
  try {
    const event = testEvent(0);
    const { position } = await store.append('counter-wait', [event]);
    await active.waitFor(position, 10_000);
    const ids = (await readModel(db.pool, 'wait')).applied.map((r) => r.event_id);
    assert.equal(ids, [event.id]);

    // A standby runner has no live position of its own: it watches the checkpoint in the database.
    const second = testEvent(1);
    const appended = await store.append('counter-wait', [second]);
    await standby.waitFor(appended.position, 10_000);
    const after = (await readModel(db.pool, 'wait')).applied.map((r) => r.event_id);
    assert.ok(after.includes(second.id as string), 'standby waitFor returned before the event was applied');

    const beyond = { commit: appended.position.commit + 1000n, prepare: 0n };
    for (const runner of [active, standby]) {
      const outcome = await runner.waitFor(beyond, 100).then(
        () => 'resolved',
        () => 'timed out',
      );
      assert.is(outcome, 'timed out', `${runner.currentState} runner`);
    }
    assert.ok(comparePositions(active.position, beyond) < 0);
  } finally {
    await standby.stop();
    await active.stop();
  }
});

test.run();
