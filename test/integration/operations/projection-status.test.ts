import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PostgresEventStore } from '../../../src/event-store/postgres.ts';
import { Projections } from '../../../src/projection/projections.ts';
import { serveApp, startTestApp } from '../../support/app.ts';
import { eventually } from '../../support/eventually.ts';
import { freshDatabase } from '../../support/postgres.ts';
import {
  appendMany,
  COUNTED,
  checkpointOf,
  counterProjection,
  readModel,
  testEvent,
} from '../../support/test-projections.ts';
import { testRegistry } from '../../support/test-streams.ts';

const test = suite('projection failures and status');

test('a poison event stops its projection only, is recorded, and fails /readyz', async () => {
  const poisonId = randomUUID();
  const poisoned = counterProjection('fragile', { poison: new Set([poisonId]) });
  const healthy = counterProjection('sturdy');
  const t = await startTestApp({ projections: [poisoned, healthy] });
  try {
    const { store, projections, pool } = t.deps;
    const before = Array.from({ length: 5 }, (_, i) => testEvent(i, 100));
    await store.append('counter-a', before);
    await store.append('counter-b', [{ id: poisonId, type: COUNTED, data: { by: 1 } }]);
    const after = Array.from({ length: 4 }, (_, i) => testEvent(i, 100));
    const { position } = await store.append('counter-a', after);

    await projections.waitFor(position, [healthy], 10_000);
    await eventually('the poisoned projection to fail', () => projections.anyFailed());

    const row = await checkpointOf(pool, 'fragile');
    assert.is(row?.state, 'failed');
    assert.is(row?.failed_event_id, poisonId);
    assert.match(row?.last_error ?? '', `poisoned by ${poisonId}`);
    // Everything before the poison event is applied, nothing from it on.
    const fragileIds = (await readModel(pool, 'fragile')).applied.map((r) => r.event_id).sort();
    assert.equal(fragileIds, before.map((e) => e.id as string).sort());
    const last = (await store.readStream('counter-a')).find((e) => e.id === before[4]!.id)!;
    assert.is(row?.commit_position, String(last.position.commit));
    assert.is(row?.prepare_position, String(last.position.prepare));

    const status = await projections.status();
    const fragile = status.find((s) => s.name === 'fragile')!;
    const sturdy = status.find((s) => s.name === 'sturdy')!;
    assert.is(fragile.state, 'failed');
    assert.is(fragile.failedEventId, poisonId);
    assert.match(fragile.lastError ?? '', 'poisoned by');
    assert.is(fragile.lagEvents, 5, 'the poison event and the four after it are behind');
    assert.is.not(sturdy.state, 'failed');
    assert.is(sturdy.lagEvents, 0);
    assert.is(sturdy.eventsApplied, 10);

    // The healthy projection goes on with new events; the failed one stays where it stopped.
    const more = await store.append('counter-c', [testEvent(0, 100)]);
    await projections.waitFor(more.position, [healthy], 10_000);
    assert.is((await readModel(pool, 'sturdy')).applied.length, 11);
    assert.is((await checkpointOf(pool, 'fragile'))?.events_applied, 5);

    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.is(ready.statusCode, 503);
    const body = ready.json();
    assert.is(body.status, 'not_ready');
    assert.is(body.checks.projections.ok, false);
    assert.match(body.checks.projections.detail, 'fragile');
    assert.not.match(body.checks.projections.detail, 'sturdy');
  } finally {
    await t.close();
  }
});

test("a standby process's /readyz shows a failure recorded by the process holding the lock", async () => {
  const poisonId = randomUUID();
  const poisoned = () => counterProjection('fragile', { poison: new Set([poisonId]) });
  const holder = await startTestApp({ projections: [poisoned()] });
  // Started second: the lock is taken, so this process's runner stands by and never sees the event.
  const standby = await serveApp(holder.db, { projections: [poisoned()] });
  try {
    assert.is((await standby.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    await holder.deps.store.append('counter-p', [{ id: poisonId, type: COUNTED, data: { by: 1 } }]);
    await eventually('the holder to fail', () => holder.deps.projections.anyFailed());
    assert.is(standby.deps.projections.anyFailed(), false, 'the standby runner itself saw nothing');
    const ready = await standby.app.inject({ method: 'GET', url: '/readyz' });
    assert.is(ready.statusCode, 503);
    assert.match(ready.json().checks.projections.detail, 'fragile');
  } finally {
    await standby.close();
    await holder.close();
  }
});

test('a failed projection stays failed when the process restarts', async () => {
  const db = await freshDatabase();
  const store = new PostgresEventStore(db.pool, testRegistry);
  const poisonId = randomUUID();
  try {
    const first = new Projections(store, db.pool, [counterProjection('p', { poison: new Set([poisonId]) })]);
    await first.start();
    await store.append('counter-x', [{ id: poisonId, type: COUNTED, data: { by: 1 } }]);
    await eventually('the projection to fail', () => first.anyFailed());
    await first.stop();

    // Restarted without the poison (say, after a deploy): it still waits for an operator.
    const second = new Projections(store, db.pool, [counterProjection('p')]);
    await second.start();
    try {
      assert.is(second.runner('p').currentState, 'failed');
      const [status] = await second.status();
      assert.is(status?.state, 'failed');
      assert.is(status?.failedEventId, poisonId);
      assert.is((await readModel(db.pool, 'p')).applied.length, 0);
    } finally {
      await second.stop();
    }
  } finally {
    await store.close();
    await db.drop();
  }
});

test('status: checkpoint, head, lag in events and in seconds', async () => {
  const db = await freshDatabase();
  const store = new PostgresEventStore(db.pool, testRegistry);
  try {
    const lagging = counterProjection('lagging');
    const projections = new Projections(store, db.pool, [lagging]);
    await projections.start();
    await appendMany(store, 200, { perAppend: 20 });
    const head = await store.head();
    await projections.waitFor(head, [lagging], 10_000);
    const [caughtUp] = await projections.status();
    assert.equal(caughtUp?.checkpoint, { commit: String(head.commit), prepare: String(head.prepare) });
    assert.equal(caughtUp?.head, caughtUp?.checkpoint);
    assert.is(caughtUp?.lagEvents, 0);
    assert.is(caughtUp?.lagSeconds, 0);
    assert.is(caughtUp?.eventsApplied, 150);
    assert.is(caughtUp?.version, 1);
    await projections.stop();

    // Stopped: the log moves on without it. Events it does not apply are no lag: they change nothing
    // it shows, and a running projection stores its checkpoint past them only now and then.
    await store.append(
      'noise',
      [0, 1, 2].map((i) => testEvent(3 + 4 * i)),
    );
    const [unaffected] = await projections.status();
    assert.is(unaffected?.lagEvents, 0, 'events of types it does not handle are not lag');
    assert.is(unaffected?.lagSeconds, 0);
    await appendMany(store, 30, { perAppend: 10, prefix: 'later' });
    const newHead = await store.head();
    const [oldest] = await store.readAll({ from: head, limit: 1, types: [COUNTED] });
    const t0 = Date.now();
    const [behind] = await projections.status();
    const t1 = Date.now();
    assert.equal(behind?.checkpoint, caughtUp?.checkpoint);
    assert.equal(behind?.head, { commit: String(newHead.commit), prepare: String(newHead.prepare) });
    assert.is(behind?.lagEvents, 23, 'the 30 events less the 7 it does not handle');
    const age = (now: number) => (now - oldest!.recordedAt.getTime()) / 1000;
    assert.ok(
      behind!.lagSeconds >= age(t0) && behind!.lagSeconds <= age(t1),
      `lagSeconds ${behind?.lagSeconds} is not the age of the oldest unapplied event`,
    );
    assert.is(behind?.eventsApplied, 150);
  } finally {
    await store.close();
    await db.drop();
  }
});

test.run();
