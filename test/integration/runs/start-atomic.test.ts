import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { handleCommand, loadState } from '../../../src/command.ts';
import { reserveCredits } from '../../../src/domain/accounts/credits.ts';
import { organizationStream } from '../../../src/domain/accounts/streams.ts';
import { columnRunStream, runStream } from '../../../src/domain/runs/run-state.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { insertRows } from '../../support/rows.ts';
import { httpColumnTable, runEnded, startRunsApp } from '../../support/runs.ts';

/* A run's start on PostgreSQL: one atomic append over the column's claim, the credits and the run (docs/runs.md). */
const test = suite('column runs: a start is one atomic append');

test('the claim, the reservation and the start land under one commit; a refused start writes nothing', async () => {
  const t = await startRunsApp();
  try {
    const account = await bootstrapAccount(t.app);
    const key = account.apiKey;
    const { tableId, columns } = await httpColumnTable(t.app, key, 'http://127.0.0.1:9');
    const columnId = columns.result.id;
    await insertRows(t.app, key, tableId, [{ n: '1' }, { n: '2' }]);
    const path = `/api/tables/${tableId}/columns/${columnId}/run`;
    const started = await call(t.app, 'POST', path, { headers: bearer(key), body: { scope: 'all' } });
    assert.is(started.status, 202, JSON.stringify(started.body));
    const runId = started.body.id as string;
    const claim = columnRunStream.name(tableId, columnId);
    const organization = organizationStream.name(account.organizationId);
    const [claimed] = await t.deps.store.readStream(claim);
    const [created] = await t.deps.store.readStream(runStream.name(runId));
    const reserved = (await t.deps.store.readStream(organization)).find(
      (e) => e.type === 'CreditsReserved' && (e.data as { runId: string }).runId === runId,
    );
    assert.is(claimed?.type, 'ColumnRunClaimed');
    assert.is(created?.type, 'RunCreated');
    assert.ok(reserved, 'the reservation is on the organization');
    assert.equal(
      new Set([claimed!, created!, reserved!].map((e) => e.position.commit)).size,
      1,
      'one commit for the three streams',
    );
    await runEnded(t.app, key, runId);

    // The balance spent elsewhere: the next start is refused, and nothing of it is written.
    const { state } = await loadState(t.deps.store, organization, organizationStream);
    await handleCommand({
      store: t.deps.store,
      stream: organization,
      decider: reserveCredits,
      command: {
        organizationId: account.organizationId,
        runId: 'run_elsewhere',
        rows: state.balance,
        creditsPerRow: 1,
      },
      metadata: {},
      now: new Date(),
    });
    const claimEvents = (await t.deps.store.readStream(claim)).length;
    const orgEvents = (await t.deps.store.readStream(organization)).length;
    const refused = await call(t.app, 'POST', path, { headers: bearer(key), body: { scope: 'all' } });
    assert.is(refused.status, 402, JSON.stringify(refused.body));
    assert.is(refused.body.code, 'insufficient_credits');
    assert.is((await t.deps.store.readStream(claim)).length, claimEvents, 'no claim, no release');
    assert.is((await t.deps.store.readStream(organization)).length, orgEvents, 'no reservation');
  } finally {
    await t.close();
  }
});

test.run();
