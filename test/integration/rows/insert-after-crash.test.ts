import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { createColumns, listAll, rowsPath } from '../../support/rows.ts';
import { createTable, tablesSuite } from '../../support/tables.ts';

/*
 * A row insert under an Idempotency-Key whose process died after writing the batch but before recording
 * the answer (its claim left pending): within the lease a retry hears 409, once the lease ran out, the retry takes the claim over and finds
 * the rows the dead attempt wrote, instead of inserting them again. The crash is made by hand here (the
 * claim put back to pending and aged past the lease); test/e2e/reliability/process-faults/row-import.test.ts
 * makes it with a SIGKILL.
 */
const test = tablesSuite('rows: a retry after a crash between the write and its recorded answer');

test('the retry answers the rows written before the crash, and writes none again', async ({ t, key }) => {
  const tableId = await createTable(t.app, key);
  await createColumns(t.app, key, tableId, { name: 'text' });
  const body = { rows: [{ cells: { name: 'a' } }, { cells: { name: 'b' } }] };
  const send = () =>
    call(t.app, 'POST', rowsPath(tableId), {
      headers: { ...bearer(key), 'idempotency-key': 'crash-1' },
      body,
    });
  const first = await send();
  assert.is(first.status, 201);
  // What a process killed after its append leaves: the claim pending, its answer never recorded.
  await t.deps.pool.query(
    `UPDATE idempotency_keys SET state = 'pending', status = NULL, headers = NULL, body = NULL
     WHERE key = 'crash-1'`,
  );
  // Within the lease the claim is still the dead attempt's.
  const early = await send();
  assert.is(early.status, 409, JSON.stringify(early.body));
  assert.is(early.body.code, 'idempotency_key_in_use');
  // A lease of one second (IDEMPOTENCY_LEASE_SECONDS), then past it.
  const config = t.deps.config as { IDEMPOTENCY_LEASE_SECONDS: number };
  const lease = config.IDEMPOTENCY_LEASE_SECONDS;
  config.IDEMPOTENCY_LEASE_SECONDS = 1;
  await new Promise((r) => setTimeout(r, 1500));
  const retry = await send().finally(() => {
    config.IDEMPOTENCY_LEASE_SECONDS = lease;
  });
  assert.is(retry.status, 201, JSON.stringify(retry.body));
  assert.is(retry.headers['idempotent-replayed'], undefined, 'ran again, not replayed');
  assert.equal(
    retry.body.data.map((r: { id: string }) => r.id),
    first.body.data.map((r: { id: string }) => r.id),
  );
  const rows = await listAll(t.app, key, tableId);
  assert.equal(
    rows.map((r) => r.cells.name),
    ['a', 'b'],
  );
  const { rows: inserts } = await t.deps.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM events WHERE type = 'RowsInserted' AND data->>'tableId' = $1`,
    [tableId],
  );
  assert.is(inserts[0]!.n, 1);
});

test.run();
