import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type LlmSettings, llmExecutor } from '../../../processes/runs/executors/llm.ts';
import { type PromptLoader, promptLoaderFrom } from '../../../processes/runs/executors/prompt-loader.ts';
import { newPromptId } from '../../../src/domain/prompts/access.ts';
import { promptStream } from '../../../src/domain/prompts/prompt-state.ts';
import { executorContext } from '../../support/executor-context.ts';
import { type FakeChatCompletions, startFakeChatCompletions } from '../../support/fake-chat-completions.ts';
import { closeStore, openStore, type StoreContext } from '../../support/store.ts';

const KEY = 'sk-test-llm';
interface Context extends StoreContext {
  fake: FakeChatCompletions;
}
const test = suite<Context>('llm executor');

test.before(async (context) => {
  context.fake = await startFakeChatCompletions(KEY);
  await openStore(context);
});
test.after(async (context) => {
  await context.fake.close();
  await closeStore(context);
});
test.before.each(({ fake }) => {
  fake.server.received.length = 0;
  fake.answers.length = 0;
});

const settings = (fake: FakeChatCompletions, over: Partial<LlmSettings> = {}): LlmSettings => ({
  baseUrl: fake.baseUrl,
  apiKey: KEY,
  models: { very_fast: 'm-very-fast', fast: 'm-fast', balanced: 'm-balanced', smart: 'm-smart' },
  timeoutMs: 10_000,
  maxRetries: 2,
  ...over,
});
const noPrompts: PromptLoader = async () => undefined;
const llm = (
  config: Record<string, unknown>,
  extra: Parameters<typeof executorContext>[0] extends infer O ? Partial<O> : never = {},
) => executorContext({ config: { provider: 'llm', ...config }, ...extra });

test('a text column: config.prompt rendered with the row, the lane model, streaming off, the run key', async ({
  fake,
}) => {
  fake.answers.push({ content: 'Acme makes anvils.' });
  const run = llmExecutor({ settings: settings(fake), loadPrompt: noPrompts });
  const outcome = await run(
    llm(
      { prompt: 'Describe {{company}} ({{size}} people). {{secrets.k}}', llmLane: 'very_fast' },
      { cells: { company: 'Acme', size: 12 } },
    ),
  );
  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.is(outcome.value, 'Acme makes anvils.');
  assert.equal([outcome.meta.httpStatus, outcome.meta.attempts], [200, 1]);
  const [body] = fake.bodies();
  assert.is(body.model, 'm-very-fast');
  assert.is(body.stream, false);
  assert.is(body.response_format, undefined);
  // No secret goes to a model: the placeholder stays as written.
  assert.equal(body.messages, [{ role: 'user', content: 'Describe Acme (12 people). {{secrets.k}}' }]);
  assert.is(fake.server.received[0]?.headers['idempotency-key'], 'run_test:row_source1');
});

test('lanes: balanced by default (the lane it is priced at); config.model wins; an unknown lane is invalid_config', async ({
  fake,
}) => {
  const run = llmExecutor({ settings: settings(fake), loadPrompt: noPrompts });
  await run(llm({ prompt: 'x' }));
  await run(llm({ prompt: 'x', llmLane: 'smart', model: 'custom-1' }));
  assert.equal(
    fake.bodies().map((b) => b.model),
    ['m-balanced', 'custom-1'],
  );
  const odd = await run(llm({ prompt: 'x', llmLane: 'warp' }));
  assert.ok(!odd.ok && odd.error.code === 'invalid_config');
  const none = await run(llm({}));
  assert.ok(!none.ok && none.error.code === 'invalid_config');
  assert.is(fake.bodies().length, 2);
});

test('a json column asks for a JSON object and stores it parsed; a non-JSON answer is the row error', async ({
  fake,
}) => {
  const run = llmExecutor({ settings: settings(fake), loadPrompt: noPrompts });
  fake.answers.push(
    { content: '{"industry":"tools","employees":12}' },
    { content: 'Sure! The industry is tools.' },
  );
  const parsed = await run(llm({ prompt: 'Classify {{c}}' }, { cells: { c: 'Acme' }, dataType: 'json' }));
  assert.ok(parsed.ok);
  assert.equal(parsed.value, { industry: 'tools', employees: 12 });
  const body = fake.bodies()[0];
  assert.equal(body.response_format, { type: 'json_object' });
  assert.is(body.messages[0].role, 'system');
  const prose = await run(llm({ prompt: 'Classify {{c}}' }, { cells: { c: 'Acme' }, dataType: 'json' }));
  assert.ok(!prose.ok);
  assert.is(prose.error.code, 'invalid_response');
});

test('unconfigured: every row fails with provider_unavailable and nothing is sent', async ({ fake }) => {
  const run = llmExecutor({
    settings: settings(fake, { baseUrl: undefined, apiKey: undefined }),
    loadPrompt: noPrompts,
  });
  const outcome = await run(llm({ prompt: 'x' }));
  assert.equal(outcome, {
    ok: false,
    error: { code: 'provider_unavailable', message: 'no LLM API is configured (LLM_BASE_URL, LLM_API_KEY)' },
    meta: { durationMs: 0, attempts: 0 },
  });
  assert.is(fake.server.received.length, 0);
});

test('429 then an answer: retried by the client, honouring the server’s wait', async ({ fake }) => {
  fake.answers.push({
    status: 429,
    type: 'requests',
    code: 'rate_limit_exceeded',
    message: 'Rate limit reached',
    headers: { 'retry-after-ms': '1' },
  });
  fake.answers.push({ content: 'second time lucky' });
  const outcome = await llmExecutor({ settings: settings(fake), loadPrompt: noPrompts })(
    llm({ prompt: 'x' }),
  );
  assert.ok(outcome.ok);
  assert.is(outcome.value, 'second time lucky');
  assert.is(outcome.meta.attempts, 2);
  const keys = fake.server.received.map((r) => r.headers['idempotency-key']);
  assert.equal(keys, ['run_test:row_source1', 'run_test:row_source1'], 'a retry carries the same key');
});

test('500 on every attempt: http_error with the status after 3 attempts; 401 at once, the key never echoed', async ({
  fake,
}) => {
  const failing = {
    status: 500,
    type: 'server_error',
    code: 'internal',
    message: 'boom',
    headers: { 'retry-after-ms': '1' },
  };
  fake.answers.push(failing, failing, failing);
  const run = llmExecutor({ settings: settings(fake), loadPrompt: noPrompts });
  const outcome = await run(llm({ prompt: 'x' }));
  assert.ok(!outcome.ok);
  assert.equal([outcome.error.code, outcome.meta.httpStatus, outcome.meta.attempts], ['http_error', 500, 3]);
  assert.match(outcome.error.message, /HTTP 500 \(internal\)/);
  const wrongKey = await llmExecutor({
    settings: settings(fake, { apiKey: 'sk-wrong-secret' }),
    loadPrompt: noPrompts,
  })(llm({ prompt: 'x' }));
  assert.ok(!wrongKey.ok);
  assert.equal(
    [wrongKey.error.code, wrongKey.meta.httpStatus, wrongKey.meta.attempts],
    ['http_error', 401, 1],
  );
  assert.not.match(JSON.stringify(wrongKey), /sk-wrong/);
});

test('an API that cannot be reached is connection_failed', async ({ fake }) => {
  const down = await startFakeChatCompletions(KEY);
  await down.close();
  const outcome = await llmExecutor({
    settings: settings(fake, { baseUrl: down.baseUrl, maxRetries: 0 }),
    loadPrompt: noPrompts,
  })(llm({ prompt: 'x' }));
  assert.ok(!outcome.ok && outcome.error.code === 'connection_failed');
});

const PROMPT = newPromptId();

const created = (version: number, template: string, variables: object[]) => ({
  type: version === 1 ? 'PromptTemplateCreated' : 'PromptTemplateVersioned',
  data: {
    promptId: PROMPT,
    organizationId: 'org_test',
    ...(version === 1 ? {} : { version }),
    name: 'describe',
    description: null,
    template,
    variables,
    at: '2026-01-01T00:00:00.000Z',
  },
});

test('a prompt template (from its stream): the latest or the pinned version, variables from the cells', async (context) => {
  await context.store.append(promptStream.name(PROMPT), [
    created(1, 'Old: {{company}}', [{ name: 'company', required: true }]),
    created(2, 'New: {{company}} in {{country}}', [
      { name: 'company', required: true },
      { name: 'country', required: false, default: 'somewhere' },
    ]),
  ]);
  const run = llmExecutor({ settings: settings(context.fake), loadPrompt: promptLoaderFrom(context.store) });
  const cells = { company: 'Acme', country: null };
  assert.ok((await run(llm({ promptTemplateId: PROMPT }, { cells }))).ok);
  assert.ok((await run(llm({ promptTemplateId: PROMPT, promptVersion: 1 }, { cells }))).ok);
  assert.equal(
    context.fake.bodies().map((b) => b.messages[0].content),
    ['New: Acme in somewhere', 'Old: Acme'],
  );

  const empty = await run(llm({ promptTemplateId: PROMPT }, { cells: { company: null } }));
  assert.ok(!empty.ok);
  assert.is(empty.error.code, 'missing_input');
  assert.match(empty.error.message, /company/);
  for (const config of [
    { promptTemplateId: PROMPT, promptVersion: 9 },
    { promptTemplateId: newPromptId() },
    { promptTemplateId: 'not-an-id' },
  ]) {
    const gone = await run(llm(config));
    assert.ok(!gone.ok && gone.error.code === 'prompt_not_found', JSON.stringify(config));
  }
  const otherOrg = await run({
    ...llm({ promptTemplateId: PROMPT }, { cells }),
    organizationId: 'org_other',
  });
  assert.ok(!otherOrg.ok && otherOrg.error.code === 'prompt_not_found');
  assert.is(context.fake.bodies().length, 2);
});

test.run();
