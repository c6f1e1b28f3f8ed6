import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadState, loadStates } from '../../../src/command.ts';
import { PostgresEventStore } from '../../../src/event-store/postgres.ts';
import { closeStore, openStore, type StoreContext } from '../../support/store.ts';
import { counterSetStream, counterTestStream, testRegistry } from '../../support/test-streams.ts';

const test = suite<StoreContext>('loading stream states (kept folds read on from their revision)');
test.before.each(openStore);
test.after.each(closeStore);

const bump = (by: number) => ({ type: 'TestCounterBumped', data: { by } });

test('a state loaded again takes in what another process appended since', async ({ db, store }) => {
  // Another process of the service: its own store over the same database.
  const other = new PostgresEventStore(db.pool, testRegistry);
  try {
    await store.append('testcounter-a', [bump(1), bump(2)]);
    assert.equal(await loadState(store, 'testcounter-a', counterTestStream), { state: 3, revision: 1n });
    await other.append('testcounter-a', [bump(10)]);
    await other.append('testcounter-a', [bump(100)]);
    assert.equal(await loadState(store, 'testcounter-a', counterTestStream), { state: 113, revision: 3n });
    // Nothing new: the same state again.
    assert.equal(await loadState(store, 'testcounter-a', counterTestStream), { state: 113, revision: 3n });
  } finally {
    await other.close();
  }
});

test('several streams in one load, each with its own state; a missing one is at its start', async ({
  store,
}) => {
  await store.append('testcounter-b', [bump(5)]);
  await store.append('counter-c', [{ type: 'CounterSet', data: { value: 7 } }]);
  await loadState(store, 'testcounter-b', counterTestStream);
  await store.append('testcounter-b', [bump(6)]);
  const [b, c, missing] = await loadStates(store, [
    { stream: 'testcounter-b', definition: counterTestStream },
    { stream: 'counter-c', definition: counterSetStream },
    { stream: 'counter-none', definition: counterSetStream },
  ] as const);
  assert.equal(b, { state: 11, revision: 1n });
  assert.equal(c, { state: { value: 7 }, revision: 0n });
  assert.equal(missing, { state: {}, revision: undefined });
});

test('two stores over two databases keep their folds apart, whatever the stream names', async ({ store }) => {
  const elsewhere: StoreContext = {} as StoreContext;
  await openStore(elsewhere);
  try {
    await store.append('testcounter-same', [bump(1)]);
    await elsewhere.store.append('testcounter-same', [bump(40), bump(2)]);
    assert.equal(await loadState(store, 'testcounter-same', counterTestStream), { state: 1, revision: 0n });
    assert.equal(await loadState(elsewhere.store, 'testcounter-same', counterTestStream), {
      state: 42,
      revision: 1n,
    });
  } finally {
    await closeStore(elsewhere);
  }
});

test.run();
