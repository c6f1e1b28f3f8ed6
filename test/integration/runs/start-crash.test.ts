import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { handleCommand } from '../../../src/command.ts';
import { reserveCredits } from '../../../src/domain/accounts/credits.ts';
import { organizationStream } from '../../../src/domain/accounts/streams.ts';
import { claimColumn, columnRunStream } from '../../../src/domain/runs/run-state.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { eventually } from '../../support/eventually.ts';
import { httpColumnTable, runEnded, startRunsApp } from '../../support/runs.ts';

/* A start that died between reserving credits and creating its run (docs/runs.md, "What happens on a crash"). */
const test = suite('column runs: a start that died before creating its run');

test('its claim is released and its reservation refunded once the claim is stale, once', async () => {
  let offsetMs = 0;
  const t = await startRunsApp({ clock: () => new Date(Date.now() + offsetMs) });
  try {
    const account = await bootstrapAccount(t.app);
    const key = account.apiKey;
    const { organizationId } = account;
    // No rows: the runs started below reserve nothing, so the ledger shows only the dead start.
    const { tableId, columns } = await httpColumnTable(t.app, key, 'http://127.0.0.1:9');
    const columnId = columns.result.id;
    const runId = 'run_died_before_created';
    const now = new Date();
    await handleCommand({
      store: t.deps.store,
      stream: columnRunStream.name(tableId, columnId),
      decider: claimColumn,
      command: { tableId, columnId, runId },
      metadata: {},
      now,
    });
    await handleCommand({
      store: t.deps.store,
      stream: organizationStream.name(organizationId),
      decider: reserveCredits,
      command: { organizationId, runId, rows: 3, creditsPerRow: 2 },
      metadata: {},
      now,
    });
    const ledger = async () =>
      (await call(t.app, 'GET', '/api/credits/ledger?limit=100', { headers: bearer(key) })).body.data as {
        kind: string;
        amount: number;
        runId: string | null;
        balanceAfter: number;
      }[];
    const reserved = await eventually('the reservation in the ledger', async () =>
      (await ledger()).find((e) => e.kind === 'reservation' && e.runId === runId),
    );
    const before = reserved.balanceAfter + reserved.amount;
    const path = `/api/tables/${tableId}/columns/${columnId}/run`;
    const early = await call(t.app, 'POST', path, { headers: bearer(key), body: { scope: 'all' } });
    assert.is(early.status, 409, 'a fresh claim may still be a start on its way');
    assert.is((await ledger()).filter((e) => e.kind === 'refund').length, 0);
    offsetMs = 3 * 60_000;
    const started = await call(t.app, 'POST', path, { headers: bearer(key), body: { scope: 'all' } });
    assert.is(started.status, 202, JSON.stringify(started.body));
    await runEnded(t.app, key, started.body.id);
    const refunds = await eventually('the refund in the ledger', async () => {
      const found = (await ledger()).filter((e) => e.kind === 'refund');
      return found.length > 0 ? found : undefined;
    });
    assert.equal(
      refunds.map((e) => [e.runId, e.amount]),
      [[runId, 6]],
    );
    assert.is((await ledger())[0]!.balanceAfter, before, 'the balance is back to what it was');
    const again = await call(t.app, 'POST', path, { headers: bearer(key), body: { scope: 'all' } });
    assert.is(again.status, 202);
    await runEnded(t.app, key, again.body.id);
    assert.is((await ledger()).filter((e) => e.kind === 'refund').length, 1, 'refunded once');
  } finally {
    await t.close();
  }
});

test.run();
