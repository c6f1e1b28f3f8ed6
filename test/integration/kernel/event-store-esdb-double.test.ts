/**
 * The EventStoreDB adapter, through the real `@eventstore/db-client`, against the in-process gRPC double
 * of EventStoreDB: the whole event store contract, then what is particular to EventStoreDB (its own
 * system events in $all, stream reads without global positions, older servers' idempotent answers).
 */
import { randomUUID } from 'node:crypto';
import { firstValueFrom, take, toArray } from 'rxjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connectEventStoreDb, type EventStoreDbStore } from '../../../src/event-store/eventstoredb.ts';
import { NO_GLOBAL_POSITION } from '../../../src/event-store/eventstoredb-mapping.ts';
import { comparePositions } from '../../../src/event-store/port.ts';
import { type EsdbDouble, type EsdbDoubleOptions, startEsdbDouble } from '../../support/esdb-double/index.ts';
import { eventStoreContract } from '../../support/event-store-contract.ts';
import { testRegistry } from '../../support/test-streams.ts';

eventStoreContract('EventStoreDB adapter over the gRPC double', async () => {
  const server = await startEsdbDouble();
  const store = connectEventStoreDb(server.url, testRegistry);
  return {
    store,
    idempotentUnderAny: 'best-effort',
    dispose: async () => {
      await store.close();
      await server.stop();
    },
  };
});

const ev = (n: number, id?: string) => ({ id, type: 'ContractTested', data: { n } });
const isSystem = (e: { type: string; stream: string }) => e.type.startsWith('$') || e.stream.startsWith('$');

async function withDouble(
  options: EsdbDoubleOptions,
  fn: (server: EsdbDouble, store: EventStoreDbStore) => Promise<void>,
) {
  const server = await startEsdbDouble(options);
  const store = connectEventStoreDb(server.url, testRegistry);
  try {
    await fn(server, store);
  } finally {
    await store.close();
    await server.stop();
  }
}

const esdb = suite('EventStoreDB adapter: what is particular to EventStoreDB');

esdb(
  'the double really puts system events into $all, including a plain-typed one in a $-stream',
  async () => {
    await withDouble({}, async (server) => {
      const types = server.log.all.map((e) => `${e.stream} ${e.type}`);
      assert.ok(types.some((t) => t.endsWith(' $metadata')));
      assert.ok(types.some((t) => t.endsWith(' $statsCollected')));
      assert.ok(types.includes('$persistentSubscriptionConfig PersistentConfig1'));
    });
  },
);

esdb('readAll and head skip system events written before, between and after ours', async () => {
  await withDouble({}, async (server, store) => {
    const s = `esdb-${randomUUID()}`;
    await store.append(s, [ev(1)]);
    server.writeSystemEvents();
    const last = await store.append(s, [ev(2)]);
    server.writeSystemEvents();

    const all = await store.readAll();
    assert.equal(
      all.map((e) => [e.stream, (e.data as { n: number }).n]),
      [
        [s, 1],
        [s, 2],
      ],
    );
    assert.is(comparePositions(await store.head(), last.position), 0);
    assert.is(comparePositions(all[1]!.position, last.position), 0, 'append and $all agree on the position');
  });
});

esdb('readAll pages past a run of system events longer than a page', async () => {
  await withDouble({}, async (server, store) => {
    const s = `esdb-${randomUUID()}`;
    await store.append(s, [ev(1)]);
    for (let i = 0; i < 100; i++) server.writeSystemEvents();
    await store.append(s, [ev(2)]);
    const all = await store.readAll({ limit: 2 });
    assert.equal(
      all.map((e) => (e.data as { n: number }).n),
      [1, 2],
    );
  });
});

esdb('subscribeAll delivers our events only, system events in between left out', async () => {
  await withDouble({}, async (server, store) => {
    const s = `esdb-${randomUUID()}`;
    const start = await store.head();
    await store.append(s, [ev(1)]);
    server.writeSystemEvents();
    const received = firstValueFrom(store.subscribeAll(start).pipe(take(3), toArray()));
    server.writeSystemEvents();
    await store.append(s, [ev(2)]);
    server.writeSystemEvents();
    await store.append(s, [ev(3)]);
    const events = await received;
    assert.equal(
      events.map((e) => (e.data as { n: number }).n),
      [1, 2, 3],
    );
    assert.not.ok(events.some(isSystem));
  });
});

esdb('metadata round-trips with the schema version; recordedAt is the server `created` stamp', async () => {
  await withDouble({}, async (server, store) => {
    const s = `esdb-${randomUUID()}`;
    await store.append(s, [{ ...ev(1), metadata: { correlationId: 'req-1', actor: 'system:test' } }]);
    const [read] = await store.readStream(s);
    assert.equal(read!.metadata, { correlationId: 'req-1', actor: 'system:test', schemaVersion: 1 });
    const createdTicks = server.log.readStream(s)![0]!.createdTicks;
    assert.is(BigInt(read!.recordedAt.getTime()), createdTicks / 10_000n);
  });
});

esdb('events read from a stream carry no global position, as EventStoreDB sends none', async () => {
  await withDouble({}, async (_server, store) => {
    const s = `esdb-${randomUUID()}`;
    await store.append(s, [ev(1)]);
    const [read] = await store.readStream(s);
    assert.equal(read!.position, NO_GLOBAL_POSITION);
  });
});

esdb('a server that answers a retry without a position: the result is never before the write', async () => {
  await withDouble({ idempotentRetryWithoutPosition: true }, async (_server, store) => {
    const s = `esdb-${randomUUID()}`;
    const ids = [randomUUID(), randomUUID()];
    const first = await store.append(s, [ev(1, ids[0]), ev(2, ids[1])], { expectedRevision: 'no_stream' });
    const again = await store.append(s, [ev(1, ids[0]), ev(2, ids[1])], { expectedRevision: 'no_stream' });
    assert.is(again.nextExpectedRevision, first.nextExpectedRevision);
    assert.ok(comparePositions(again.position, first.position) >= 0);
    assert.is((await store.readStream(s)).length, 2);
  });
});

esdb('a retry of part of a batch is refused as a wrong expected revision', async () => {
  await withDouble({}, async (_server, store) => {
    const s = `esdb-${randomUUID()}`;
    const ids = [randomUUID(), randomUUID()];
    await store.append(s, [ev(1, ids[0]), ev(2, ids[1])], { expectedRevision: 'no_stream' });
    try {
      await store.append(s, [ev(1, ids[0]), ev(3)], { expectedRevision: 'no_stream' });
      assert.unreachable('a half-matching retry was accepted');
    } catch (error) {
      assert.is((error as Error).name, 'WrongExpectedRevisionError');
    }
    assert.is((await store.readStream(s)).length, 2);
  });
});

esdb('close ends live subscriptions', async () => {
  const server = await startEsdbDouble();
  const store = connectEventStoreDb(server.url, testRegistry);
  try {
    await store.append(`esdb-${randomUUID()}`, [ev(1)]);
    const completed = new Promise<void>((resolve, reject) =>
      store.subscribeAll().subscribe({ complete: resolve, error: reject }),
    );
    await store.close();
    await Promise.race([
      completed,
      new Promise((_, reject) => setTimeout(() => reject(new Error('the subscription did not end')), 10_000)),
    ]);
  } finally {
    await server.stop();
  }
});

esdb.run();
