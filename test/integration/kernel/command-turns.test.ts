import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { handleCommand } from '../../../src/command.ts';
import type { EventStore } from '../../../src/event-store/port.ts';
import { closeStore, openStore, type StoreContext } from '../../support/store.ts';
import { counterSetStream } from '../../support/test-streams.ts';

/** Adds one to the stream's value: each command must see every earlier one to count right. */
const increment = counterSetStream.decider((_: null, state) => [
  { type: 'CounterSet', data: { value: (state.value ?? 0) + 1 } },
]);

const test = suite<StoreContext>('handleCommand: commands of one process on one stream take turns');
test.before(openStore);
test.after(closeStore);

/** The store, counting the appends tried (a lost race is one more). */
function counting(store: EventStore): { store: EventStore; appends: () => number } {
  let appends = 0;
  const counted: EventStore = Object.create(store);
  counted.append = (...args: Parameters<EventStore['append']>) => {
    appends++;
    return store.append(...args);
  };
  return { store: counted, appends: () => appends };
}

const incrementing = (store: EventStore, stream: string) =>
  handleCommand({ store, stream, decider: increment, command: null, metadata: {}, now: new Date() });

test('twenty at once on one stream: every one lands, none loses a race and tries again', async ({
  store,
}) => {
  const { store: counted, appends } = counting(store);
  await Promise.all(Array.from({ length: 20 }, () => incrementing(counted, 'counter-turns')));
  const events = await store.readStream('counter-turns');
  assert.equal(
    events.map((e) => (e.data as { value: number }).value),
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
  assert.is(appends(), 20, 'one append each: nobody raced');
});

test('a state read before its turn is read again, so nothing decided on it is stale', async ({ store }) => {
  const first = incrementing(store, 'counter-stale');
  // Read while the first is under way: revision none, value none.
  const loaded = { state: {}, revision: undefined };
  const second = handleCommand({
    store,
    stream: 'counter-stale',
    decider: increment,
    command: null,
    metadata: {},
    now: new Date(),
    loaded,
  });
  await Promise.all([first, second]);
  assert.equal(
    (await store.readStream('counter-stale')).map((e) => (e.data as { value: number }).value),
    [1, 2],
  );
});

test('a command that fails gives the turn on; streams apart do not wait for each other', async ({
  store,
}) => {
  const refuse = counterSetStream.decider((): never => {
    throw new Error('refused');
  });
  const failing = handleCommand({
    store,
    stream: 'counter-fails',
    decider: refuse,
    command: null,
    metadata: {},
    now: new Date(),
  });
  const after = incrementing(store, 'counter-fails');
  const elsewhere = incrementing(store, 'counter-elsewhere');
  assert.match(String(await failing.catch((e: unknown) => e)), /refused/);
  assert.is((await after).revision, 0n);
  assert.is((await elsewhere).revision, 0n);
});

test.run();
