/**
 * The event store contract against a real EventStoreDB: the server at EVENTSTORE_URL when set, else an
 * insecure single node started with testcontainers when a Docker engine answers. With neither, every
 * contract test is listed as skipped and the reason printed.
 */
import { GenericContainer, getContainerRuntimeClient, Wait } from 'testcontainers';
import { connectEventStoreDb } from '../../../src/event-store/eventstoredb.ts';
import { eventStoreContract } from '../../support/event-store-contract.ts';
import { testRegistry } from '../../support/test-streams.ts';

const IMAGE = process.env.EVENTSTORE_IMAGE ?? 'eventstore/eventstore:23.10.0-bookworm-slim';
const HTTP_PORT = 2113;

/** Without an engine this fails at once ("Could not find a working container runtime strategy"). */
async function dockerEngineAnswers(): Promise<boolean> {
  try {
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

const givenUrl = process.env.EVENTSTORE_URL;

if (givenUrl) {
  eventStoreContract('EventStoreDB adapter on EVENTSTORE_URL', async () => {
    const store = connectEventStoreDb(givenUrl, testRegistry);
    return { store, idempotentUnderAny: 'best-effort', dispose: () => store.close() };
  });
} else if (await dockerEngineAnswers()) {
  eventStoreContract(`EventStoreDB adapter on ${IMAGE}`, async () => {
    const container = await new GenericContainer(IMAGE)
      .withEnvironment({
        EVENTSTORE_INSECURE: 'true',
        EVENTSTORE_CLUSTER_SIZE: '1',
        EVENTSTORE_MEM_DB: 'true',
        EVENTSTORE_RUN_PROJECTIONS: 'None',
      })
      .withExposedPorts(HTTP_PORT)
      .withWaitStrategy(
        Wait.forHttp('/health/live', HTTP_PORT).forStatusCodeMatching((s) => s >= 200 && s < 300),
      )
      .withStartupTimeout(120_000)
      .start();
    const store = connectEventStoreDb(
      `esdb://${container.getHost()}:${container.getMappedPort(HTTP_PORT)}?tls=false`,
      testRegistry,
    );
    return {
      store,
      idempotentUnderAny: 'best-effort',
      dispose: async () => {
        await store.close();
        await container.stop();
      },
    };
  });
} else {
  console.log('skipped: EventStoreDB contract (no Docker engine)');
  eventStoreContract(
    'EventStoreDB adapter on a real server',
    () => Promise.reject(new Error('no EventStoreDB available')),
    { skip: true },
  );
}
