import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AttemptLog, HOLD_UP_TO } from '../../../processes/webhooks/attempt-log.ts';
import type { WebhookAttempted } from '../../../src/domain/webhooks/events.ts';
import { attemptLogStream } from '../../../src/domain/webhooks/subscription-state.ts';
import { PostgresEventStore } from '../../../src/event-store/postgres.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';
import { testRegistry } from '../../support/test-streams.ts';
import { sampleAttempt } from '../../support/webhook-attempts.ts';

/*
 * The attempt log's hold-back (processes/webhooks/attempt-log.ts): attempts that succeeded wait while
 * more of their subscription's deliveries are coming, and go out together as one event; a lone
 * attempt, the last one coming, a failure or a full hold lets them go at once.
 */
const test = suite<{ db: TestDatabase; store: PostgresEventStore; log: AttemptLog }>(
  'webhook attempt log: attempts held while more are coming',
);
test.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.store = new PostgresEventStore(ctx.db.pool, testRegistry);
  // Held for a minute at most here (the backstop's own test says otherwise): a busy machine's slow
  // appends must not let attempts go that the tests see held.
  ctx.log = new AttemptLog(ctx.store, 60_000);
});
test.after.each(async (ctx) => {
  await ctx.store.close();
  await ctx.db.drop();
});

const attempt = (messageId: string, outcome?: WebhookAttempted['outcome'], subscriptionId?: string) =>
  sampleAttempt({ messageId, outcome, subscriptionId });

/** The attempt log's events of a subscription: the message ids of each. */
async function batches(store: PostgresEventStore, subscriptionId = 'wh_1'): Promise<string[][]> {
  const events = await store.readStream(attemptLogStream.name('o1', subscriptionId));
  return events.map((e) => (e.data as { attempts: WebhookAttempted[] }).attempts.map((a) => a.messageId));
}

/** Whether a promise has settled by the time the event loop has run what is queued. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

test('a lone attempt is recorded at once, in an event of its own', async ({ store, log }) => {
  log.begin('wh_1');
  await log.record(attempt('a'));
  assert.equal(await batches(store), [['a']]);
  assert.equal(log.pending('wh_1'), { held: 0, coming: 0 });
});

test('attempts wait for the last delivery coming, then go out as one event', async ({ store, log }) => {
  for (let i = 0; i < 3; i++) log.begin('wh_1');
  const first = log.record(attempt('a'));
  const second = log.record(attempt('b'));
  assert.not.ok(await settled(first), 'held while one more is coming');
  assert.equal(log.pending('wh_1'), { held: 2, coming: 1 });
  assert.equal(await batches(store), []);
  await Promise.all([first, second, log.record(attempt('c'))]);
  assert.equal(await batches(store), [['a', 'b', 'c']]);
});

test('a delivery that ends without an attempt lets the held ones go', async ({ store, log }) => {
  log.begin('wh_1');
  log.begin('wh_1');
  const held = log.record(attempt('a'));
  assert.not.ok(await settled(held));
  assert.equal(log.pending('wh_1'), { held: 1, coming: 1 });
  log.abandon('wh_1');
  await held;
  assert.equal(await batches(store), [['a']]);
});

test('an attempt that did not succeed goes at once, with what is held', async ({ store, log }) => {
  for (let i = 0; i < 3; i++) log.begin('wh_1');
  const held = log.record(attempt('a'));
  await Promise.all([held, log.record(attempt('b', 'retrying'))]);
  assert.equal(await batches(store), [['a', 'b']]);
  assert.equal(log.pending('wh_1'), { held: 0, coming: 1 });
});

test('a full hold goes out while more are coming; other subscriptions are held apart', async ({
  store,
  log,
}) => {
  for (let i = 0; i <= HOLD_UP_TO; i++) log.begin('wh_1');
  log.begin('wh_2');
  log.begin('wh_2');
  const other = log.record(attempt('x', 'succeeded', 'wh_2'));
  const ids = Array.from({ length: HOLD_UP_TO }, (_, i) => `m${String(i).padStart(2, '0')}`);
  await Promise.all(ids.map((id) => log.record(attempt(id))));
  assert.equal(await batches(store), [ids]);
  assert.equal(log.pending('wh_1'), { held: 0, coming: 1 });
  // wh_2's attempt still waits for its other delivery, whatever wh_1 did.
  assert.not.ok(await settled(other));
  assert.equal(log.pending('wh_2'), { held: 1, coming: 1 });
  assert.equal(await batches(store, 'wh_2'), []);
  log.abandon('wh_2');
  await other;
  assert.equal(await batches(store, 'wh_2'), [['x']]);
});

test('an attempt held while the others are slow is recorded all the same', async ({ store }) => {
  const log = new AttemptLog(store);
  log.begin('wh_1');
  log.begin('wh_1');
  // The other delivery never ends here: the hold's backstop lets the attempt go.
  await log.record(attempt('a'));
  assert.equal(await batches(store), [['a']]);
  log.abandon('wh_1');
});

test.run();
