import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bearer, bootstrapAccount, call } from '../../../support/accounts.ts';
import { eventually } from '../../../support/eventually.ts';
import { freshDatabase, type TestDatabase } from '../../../support/postgres.ts';
import { Services, untilAnswered } from '../../../support/process-faults.ts';
import { createColumns, listAll, rowsPath } from '../../../support/rows.ts';
import { createTable } from '../../../support/tables.ts';

/**
 * A row import as `stk rows insert` does it (batches in order, each with its own Idempotency-Key, a
 * batch retried with its key until answered) with the service SIGKILLed in the middle: after the
 * restart the import finishes, and the table holds every row exactly once, whether the batch in flight
 * at the kill had been written or not.
 */
interface Ctx {
  db: TestDatabase;
  services: Services;
}

const test = suite<Ctx>('process faults: a row import, SIGKILLed midway');

const BATCHES = 30;
const PER_BATCH = 100;
/** Short, so that a retry takes over the claim its killed attempt left without a long wait. */
const LEASE_SECONDS = '2';

test.before(async (ctx) => {
  ctx.db = await freshDatabase();
  ctx.services = new Services({ DATABASE_URL: ctx.db.url, IDEMPOTENCY_LEASE_SECONDS: LEASE_SECONDS });
});
test.after(async (ctx) => {
  await ctx.services.close();
  await ctx.db.drop();
});

test('every row once after a kill mid-import and a restart', async (ctx) => {
  const { services } = ctx;
  const first = await services.start();
  const { apiKey } = await bootstrapAccount(first.url);
  const tableId = await createTable(first.url, apiKey);
  await createColumns(first.url, apiKey, tableId, { n: 'number' });

  let answered = 0;
  const statuses: number[] = [];
  const importing = (async () => {
    for (let b = 0; b < BATCHES; b++) {
      const rows = Array.from({ length: PER_BATCH }, (_, i) => ({ cells: { n: b * PER_BATCH + i } }));
      // A 409 is the killed attempt's claim, still leased: the importer waits it out like a 5xx.
      const answer = await untilAnswered(async () => {
        const res = await call(services.current.url, 'POST', rowsPath(tableId), {
          headers: { ...bearer(apiKey), 'idempotency-key': `import-${b}` },
          body: { rows },
        });
        return res.status === 409 ? { ...res, status: 503 } : res;
      });
      statuses.push(answer.status);
      assert.is(answer.status, 201, JSON.stringify(answer.body));
      assert.equal(
        answer.body.data.map((r: { cells: { n: number } }) => r.cells.n),
        rows.map((r) => r.cells.n),
      );
      answered++;
    }
  })();
  // Its failure is reported where it is awaited, after the restart; not as an unhandled rejection.
  importing.catch(() => {});
  await eventually('a third of the import', () => answered >= BATCHES / 3, 60_000);
  await services.kill();
  assert.ok(answered < BATCHES, 'the import ended before the kill');
  await services.start();
  await importing;

  const rows = await listAll(services.current.url, apiKey, tableId, 'limit=1000');
  const values = rows.map((r) => r.cells.n as number);
  assert.is(values.length, BATCHES * PER_BATCH, 'rows in the table');
  assert.is(new Set(values).size, BATCHES * PER_BATCH, 'a row inserted twice');
  const batches = await ctx.db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM events WHERE type = 'RowsInserted'`,
  );
  assert.is(batches.rows[0]!.n, BATCHES, 'one insert per batch in the log');
});

test.run();
