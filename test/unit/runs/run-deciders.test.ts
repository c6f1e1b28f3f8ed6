import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createOrganization } from '../../../commands/accounts/bootstrap-attempt.ts';
import { settleCredits } from '../../../services/accounts/credits.ts';
import { reserveCredits, rowCharge } from '../../../src/domain/accounts/credits.ts';
import { organizationStream } from '../../../src/domain/accounts/streams.ts';
import { claimColumn, eventIdOf } from '../../../src/domain/runs/run-state.ts';
import { finalStatus } from '../../../src/domain/runs/workflow.ts';
import { MemoryEventStore } from '../../../src/event-store/memory.ts';
import { given } from '../../support/decider-spec.ts';
import { testRegistry } from '../../support/test-streams.ts';

// A new organization holds 50 credits.
const created = given(createOrganization, [])
  .when({ organizationId: 'o1', name: 'Org', createdBy: 'u1' })
  .events();
const reserve = (rows: number, creditsPerRow: number) => ({
  organizationId: 'o1',
  runId: 'r1',
  rows,
  creditsPerRow,
});

test('a reservation holds the estimate when the balance covers it', () => {
  given(reserveCredits, created)
    .when(reserve(10, 4))
    .thenEvents([{ type: 'CreditsReserved', data: { organizationId: 'o1', runId: 'r1', amount: 40 } }]);
});

test('a balance covering some rows reserves whole rows only; none covered is 402', () => {
  given(reserveCredits, created)
    .when(reserve(20, 8))
    .thenEvents([{ type: 'CreditsReserved', data: { organizationId: 'o1', runId: 'r1', amount: 48 } }]);
  const held = [
    ...created,
    { type: 'CreditsReserved' as const, data: { organizationId: 'o1', runId: 'r0', amount: 45 } },
  ];
  given(reserveCredits, held).when(reserve(3, 8)).refuses('insufficient_credits');
  given(reserveCredits, held)
    .when(reserve(3, 2))
    .thenEvents([{ type: 'CreditsReserved', data: { organizationId: 'o1', runId: 'r1', amount: 4 } }]);
});

test('free rows or no rows reserve nothing; an unknown organization is 404', () => {
  given(reserveCredits, created).when(reserve(10, 0)).thenEvents([]);
  given(reserveCredits, created).when(reserve(0, 4)).thenEvents([]);
  given(reserveCredits, []).when(reserve(1, 1)).refuses('not_found');
});

test('a refund gives back, a charge moves nothing', () => {
  const events = [
    ...created,
    { type: 'CreditsReserved' as const, data: { organizationId: 'o1', runId: 'r1', amount: 30 } },
    { type: 'CreditsCharged' as const, data: { organizationId: 'o1', runId: 'r1', amount: 10 } },
    { type: 'CreditsRefunded' as const, data: { organizationId: 'o1', runId: 'r1', amount: 20 } },
  ];
  assert.is(events.reduce(organizationStream.evolve, organizationStream.initialState()).balance, 40);
});

test('a settlement appends the charge and the refund with ids from the run; worked twice, it appends nothing more', async () => {
  const store = new MemoryEventStore(testRegistry);
  const stream = organizationStream.name('o1');
  await store.append(stream, created, { expectedRevision: 'no_stream' });
  const reserved = { organizationId: 'o1', runId: 'r1', amount: 30 };
  await store.append(stream, [{ type: 'CreditsReserved', data: reserved }]);
  const settlement = { organizationId: 'o1', runId: 'r1', charged: 10, refunded: 20 };
  await settleCredits(store, settlement);
  await settleCredits(store, settlement);
  const events = await store.readStream(stream, { from: BigInt(created.length + 1) });
  assert.equal(
    events.map(({ id, type, data }) => ({ id, type, data })),
    [
      {
        id: eventIdOf('charge', 'r1'),
        type: 'CreditsCharged',
        data: { organizationId: 'o1', runId: 'r1', amount: 10 },
      },
      {
        id: eventIdOf('refund', 'r1'),
        type: 'CreditsRefunded',
        data: { organizationId: 'o1', runId: 'r1', amount: 20 },
      },
    ],
  );
  // Nothing charged and nothing to give back: no event.
  await settleCredits(store, { organizationId: 'o1', runId: 'r2', charged: 0, refunded: 0 });
  assert.is((await store.readStream(stream)).length, created.length + 3);
});

test('one run per column: a second claim is 409 run_in_progress, the same run claims again as a no-op', () => {
  const claimed = [{ type: 'ColumnRunClaimed' as const, data: { tableId: 't', columnId: 'c', runId: 'r1' } }];
  given(claimColumn, claimed).when({ tableId: 't', columnId: 'c', runId: 'r2' }).refuses('run_in_progress');
  given(claimColumn, claimed).when({ tableId: 't', columnId: 'c', runId: 'r1' }).thenEvents([]);
  const released = [
    ...claimed,
    { type: 'ColumnRunReleased' as const, data: { tableId: 't', columnId: 'c', runId: 'r1' } },
  ];
  given(claimColumn, released)
    .when({ tableId: 't', columnId: 'c', runId: 'r2' })
    .thenEvents([{ type: 'ColumnRunClaimed', data: { tableId: 't', columnId: 'c', runId: 'r2' } }]);
});

test('how a run ends, and what a row costs', () => {
  const counts = (succeeded: number, failed: number, skipped: number) => ({
    total: succeeded + failed + skipped,
    succeeded,
    failed,
    skipped,
  });
  assert.is(finalStatus(counts(3, 0, 0), false).status, 'succeeded');
  assert.is(finalStatus(counts(0, 0, 0), false).status, 'succeeded');
  assert.is(finalStatus(counts(2, 1, 0), false).status, 'partially_succeeded');
  assert.is(finalStatus(counts(2, 0, 1), false).status, 'partially_succeeded');
  assert.is(finalStatus(counts(0, 3, 0), false).status, 'failed');
  assert.ok(finalStatus(counts(0, 3, 0), false).error);
  assert.is(finalStatus(counts(3, 0, 0), true).status, 'stopped');
  assert.is(rowCharge(4, null), 4);
  assert.is(rowCharge(4, { code: 'http_error' }), 4);
  assert.is(rowCharge(4, { code: 'provider_unavailable' }), 0);
  assert.is(rowCharge(4, { code: 'internal' }), 0);
});

test('event ids from names: the same name, the same UUID; another name, another', () => {
  const id = eventIdOf('row-finished', 'run_1', 'row_1');
  assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is(eventIdOf('row-finished', 'run_1', 'row_1'), id);
  assert.is.not(eventIdOf('row-finished', 'run_1', 'row_2'), id);
});

test.run();
