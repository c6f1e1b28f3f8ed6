import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type BatchCommandOutcome, handleCommandBatch } from '../../../src/command-batch.ts';
import type { EventStore, StreamAppend, StreamAppendOutcome } from '../../../src/event-store/port.ts';
import { closeStore, openStore, type StoreContext } from '../../support/store.ts';
import { counterSetStream } from '../../support/test-streams.ts';

type CounterEvent = { type: 'CounterSet'; data: { value: number } };
type Outcome = BatchCommandOutcome<CounterState, CounterEvent>;
interface CounterState {
  value?: number;
}
/** A stream whose last event is its state: set a value, nothing when unchanged, refuse negatives. */
const counter = counterSetStream.decider((command: { value: number }, state) => {
  if (command.value < 0) throw new Error('negative');
  return state.value === command.value ? [] : [{ type: 'CounterSet', data: { value: command.value } }];
});

const test = suite<StoreContext>('handleCommandBatch');
test.before(openStore);
test.after(closeStore);

const items = (pairs: [string, number][]) =>
  pairs.map(([stream, value]) => ({ stream, command: { value }, metadata: {}, now: new Date() }));

test('given streams at various states, when a batch decides, then each item has its own outcome', async ({
  store,
}) => {
  await store.append('counter-b', [{ type: 'CounterSet', data: { value: 5 } }]);
  const outcomes = await handleCommandBatch({
    store,
    decider: counter,
    items: items([
      ['counter-a', 1],
      ['counter-b', 5],
      ['counter-c', -1],
      ['counter-d', 2],
    ]),
  });
  assert.equal(
    outcomes.map((o) => o.ok),
    [true, true, false, true],
  );
  const [a, b, c] = outcomes as [Outcome, Outcome, Outcome];
  assert.ok(a.ok && a.result.events.length === 1 && a.result.revision === 0n && a.result.appended);
  assert.ok(b.ok && b.result.events.length === 0 && b.result.revision === 0n && !b.result.appended);
  assert.match(String(!c.ok && c.error), /negative/);
  assert.equal(
    (await store.readStream('counter-b')).map((e) => e.data),
    [{ value: 5 }],
    'unchanged: nothing appended',
  );
  assert.equal((await store.readStream('counter-c')).length, 0);
});

test('a stream written between the read and the append is read and decided again', async ({ store }) => {
  // The first appendToStreams call finds its stream moved on (another writer got there first).
  let interfered = false;
  const racing: EventStore = Object.create(store);
  racing.appendToStreams = async (appends: readonly StreamAppend[]): Promise<StreamAppendOutcome[]> => {
    if (!interfered) {
      interfered = true;
      await store.append('counter-race', [{ type: 'CounterSet', data: { value: 7 } }]);
    }
    return store.appendToStreams(appends);
  };
  const [outcome] = (await handleCommandBatch({
    store: racing,
    decider: counter,
    items: items([['counter-race', 8]]),
  })) as [Outcome];
  assert.ok(outcome.ok && outcome.result.revision === 1n);
  assert.equal(
    (await store.readStream('counter-race')).map((e) => e.data),
    [{ value: 7 }, { value: 8 }],
  );
});

test('the same stream twice in one batch: both decisions land, in order', async ({ store }) => {
  const outcomes = await handleCommandBatch({
    store,
    decider: counter,
    items: items([
      ['counter-twice', 1],
      ['counter-twice', 2],
    ]),
  });
  assert.ok(outcomes.every((o) => o.ok));
  assert.equal(
    (await store.readStream('counter-twice')).map((e) => e.data),
    [{ value: 1 }, { value: 2 }],
  );
});

test('a stream named again in one batch is decided on what the first command left', async ({ store }) => {
  await store.append('counter-back', [{ type: 'CounterSet', data: { value: 5 } }]);
  // 5 -> 6 -> 5: the second command is a change after the first, not "unchanged" against the read.
  const outcomes = await handleCommandBatch({
    store,
    decider: counter,
    items: items([
      ['counter-back', 6],
      ['counter-back', 5],
    ]),
  });
  assert.ok(outcomes.every((o) => o.ok));
  assert.equal(
    (await store.readStream('counter-back')).map((e) => e.data),
    [{ value: 5 }, { value: 6 }, { value: 5 }],
  );
});

test('a stream whose last event no longer reads fails alone; the others are decided', async ({
  store,
  db,
}) => {
  // Written past the registry, as a bug or a hand edit might have: the schema wants an integer.
  await db.pool.query(
    `INSERT INTO streams (stream_name, revision) VALUES ('counter-broken', 0);
     INSERT INTO events (stream_name, stream_revision, event_id, type, data)
     VALUES ('counter-broken', 0, gen_random_uuid(), 'CounterSet', '{"value": "seven"}')`,
  );
  const [broken, fine] = (await handleCommandBatch({
    store,
    decider: counter,
    items: items([
      ['counter-broken', 1],
      ['counter-fine', 1],
    ]),
  })) as [Outcome, Outcome];
  assert.is(broken.ok, false);
  assert.match(String(!broken.ok && broken.error), /CounterSet/);
  assert.ok(fine.ok && fine.result.appended);
  assert.is((await store.readStream('counter-fine')).length, 1);
});

test.run();
