import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { createAuthenticator } from '../../../services/accounts/authenticator.ts';
import { LLM_LANE_CREDITS } from '../../../src/credits/prices.ts';
import { bearer, bootstrapAccount, call } from '../../support/accounts.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../support/fake-chat-completions.ts';
import { createColumns, insertRows } from '../../support/rows.ts';
import { runEnded } from '../../support/runs.ts';
import { createTable } from '../../support/tables.ts';

const API_KEY = 'sk-column-run';
interface Ctx {
  t: TestApp;
  key: string;
  llm: FakeChatCompletions;
}
const test = suite<Ctx>('llm columns run: the default lane, odd answers');

test.before(async (ctx) => {
  ctx.llm = await startFakeChatCompletions(API_KEY);
  ctx.t = await startTestApp({
    projections: service.projections,
    routes: service.routes,
    authenticator: createAuthenticator,
    workers: service.workers,
    env: {
      LLM_BASE_URL: ctx.llm.baseUrl,
      LLM_API_KEY: API_KEY,
      LLM_MODEL_VERY_FAST: 'model-very-fast',
      LLM_MODEL_FAST: 'model-fast',
      LLM_MODEL_BALANCED: 'model-balanced',
      LLM_MODEL_SMART: 'model-smart',
    },
  });
  ctx.key = (await bootstrapAccount(ctx.t.app)).apiKey;
});
test.after(async (ctx) => {
  await ctx.t?.close();
  await ctx.llm?.close();
});
test.before.each(({ llm }) => {
  llm.server.received.length = 0;
  llm.answers.length = 0;
});

/** A table with an input column `n`, a lane-less llm column `summary` and `count` rows. */
async function llmTable(ctx: Ctx, count: number) {
  const tableId = await createTable(ctx.t.app, ctx.key);
  const columns = await createColumns(ctx.t.app, ctx.key, tableId, {
    n: 'text',
    summary: { dataType: 'text', kind: 'enrichment', config: { provider: 'llm', prompt: 'Sum up {{n}}' } },
  });
  await insertRows(
    ctx.t.app,
    ctx.key,
    tableId,
    Array.from({ length: count }, (_, i) => ({ n: `${i + 1}` })),
  );
  const started = await call(ctx.t.app, 'POST', `/api/tables/${tableId}/columns/${columns.summary.id}/run`, {
    headers: bearer(ctx.key),
    body: { scope: 'all' },
  });
  assert.is(started.status, 202, JSON.stringify(started.body));
  return started.body;
}

test('a column naming no lane is priced as balanced and runs the balanced model', async (ctx) => {
  const started = await llmTable(ctx, 2);
  assert.is(started.credits.reserved, 2 * LLM_LANE_CREDITS.balanced);
  const ended = await runEnded(ctx.t.app, ctx.key, started.id);
  assert.is(ended.status, 'succeeded', JSON.stringify(ended));
  assert.equal(ended.credits, { reserved: 8, charged: 8, refunded: 0 });
  assert.equal(
    ctx.llm.bodies().map((b) => b.model),
    ['model-balanced', 'model-balanced'],
  );
});

test('an answer without choices fails its row with invalid_response after one call', async (ctx) => {
  // Scripted for every call a retry could make: the row must end on the first.
  const noChoices = { raw: { id: 'chatcmpl-odd', object: 'chat.completion', model: 'model-balanced' } };
  ctx.llm.answers.push(...Array.from({ length: 5 }, () => noChoices));
  const started = await llmTable(ctx, 1);
  const ended = await runEnded(ctx.t.app, ctx.key, started.id);
  assert.is(ended.status, 'failed');
  const rows = await call(ctx.t.app, 'GET', `/api/runs/${started.id}/rows`, { headers: bearer(ctx.key) });
  const [row] = rows.body.data;
  assert.is(row.error.code, 'invalid_response', JSON.stringify(row));
  assert.is(row.attempts, 1);
  assert.is(row.httpStatus, 200);
  assert.is(ctx.llm.bodies().length, 1, 'the provider was called once');
  // The provider was called: the row is charged.
  assert.is(ended.credits.charged, LLM_LANE_CREDITS.balanced);
});

test.run();
