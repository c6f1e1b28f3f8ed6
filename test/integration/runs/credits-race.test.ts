import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { grantCredits } from '../../../commands/accounts/grant-credits.ts';
import { handleCommand, loadState } from '../../../src/command.ts';
import { STARTER_CREDITS } from '../../../src/domain/accounts/events.ts';
import { organizationStream } from '../../../src/domain/accounts/streams.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import type { TestApp } from '../../support/app.ts';
import { insertRows } from '../../support/rows.ts';
import { type CountingTarget, runEnded, startRunsApp, startTarget } from '../../support/runs.ts';
import { createColumn, createTable } from '../../support/tables.ts';

interface Ctx {
  t: TestApp;
  target: CountingTarget;
}

const test = suite<Ctx>('credits: concurrent runs and grants never take the balance below zero');

test.before(async (ctx) => {
  ctx.target = await startTarget();
  ctx.t = await startRunsApp();
});
test.after(async (ctx) => {
  await ctx.t.close();
  await ctx.target.close();
});

const RUNS = 20;
const ROWS = 7;
const GRANTS = 5;
const GRANT = 3;

test('20 runs of 7 rows at once against a balance of 50, with grants meanwhile', async ({ t, target }) => {
  const account = await bootstrapAccount(t.app);
  const key = account.apiKey;
  const tableId = await createTable(t.app, key);
  await createColumn(t.app, key, tableId, { label: 'n', key: 'n', kind: 'input', dataType: 'text' });
  const columns = [];
  for (let i = 0; i < RUNS; i++) {
    columns.push(
      await createColumn(t.app, key, tableId, {
        label: `c${i}`,
        key: `c${i}`,
        kind: 'enrichment',
        dataType: 'json',
        config: { provider: 'http_request', method: 'GET', url: `${target.url}/x?n={{n}}` },
      }),
    );
  }
  await insertRows(
    t.app,
    key,
    tableId,
    Array.from({ length: ROWS }, (_, i) => ({ n: String(i) })),
  );
  const grant = () =>
    handleCommand({
      store: t.deps.store,
      stream: organizationStream.name(account.organizationId),
      decider: grantCredits,
      command: { organizationId: account.organizationId, amount: GRANT, reason: 'race test' },
      metadata: {},
      now: new Date(),
      maxRetries: 200,
    });
  const answers = await Promise.all([
    ...columns.map((c) =>
      call(t.app, 'POST', `/api/tables/${tableId}/columns/${c.id}/run`, {
        headers: bearer(key),
        body: { scope: 'all' },
      }),
    ),
    ...Array.from({ length: GRANTS }, async () => {
      await grant();
      return undefined;
    }),
  ]);
  const started = answers.filter((a) => a?.status === 202);
  const refused = answers.filter((a) => a && a.status !== 202);
  for (const r of refused) assert.is(r!.status, 402, JSON.stringify(r!.body));
  const ended = await Promise.all(started.map((a) => runEnded(t.app, key, a!.body.id)));
  const reserved = ended.reduce((sum, r) => sum + r.credits.reserved, 0);
  const charged = ended.reduce((sum, r) => sum + r.credits.charged, 0);
  const available = STARTER_CREDITS + GRANTS * GRANT;
  // More was asked for than there was: the runs took at most what there was, all of it when asked.
  assert.ok(RUNS * ROWS > available);
  assert.ok(reserved <= available, `${reserved} reserved of ${available}`);
  assert.is(charged, reserved);
  const { state } = await loadState(
    t.deps.store,
    organizationStream.name(account.organizationId),
    organizationStream,
  );
  assert.is(state.balance, available - charged);
  assert.ok(state.balance >= 0);
  assert.ok(refused.length > 0, 'some runs found nothing left to reserve');
  // The ledger, newest first, never shows a balance below zero.
  const ledger = await call(t.app, 'GET', '/api/credits/ledger?limit=100', { headers: bearer(key) });
  const entries = ledger.body.data as { kind: string; balanceAfter: number }[];
  assert.ok(entries.every((e) => e.balanceAfter >= 0));
  assert.is(entries[0]!.balanceAfter, state.balance);
  assert.is(entries.filter((e) => e.kind === 'reservation').length, started.length);
});

test.run();
