import { PostgresEventStore } from '../../src/event-store/postgres.ts';
import { eventStoreContract } from '../support/event-store-contract.ts';
import { freshDatabase } from '../support/postgres.ts';

eventStoreContract('PostgreSQL', async () => {
  const db = await freshDatabase();
  const store = new PostgresEventStore(db.pool);
  return {
    store,
    idempotentUnderAny: 'guaranteed',
    dispose: async () => {
      await store.close();
      await db.drop();
    },
  };
});
