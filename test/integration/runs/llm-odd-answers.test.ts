import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type LlmSettings, llmExecutor } from '../../../processes/runs/executors/llm.ts';
import type { PromptLoader } from '../../../processes/runs/executors/prompt-loader.ts';
import { executorContext } from '../../support/executor-context.ts';
import {
  type ChatAnswer,
  type FakeChatCompletions,
  startFakeChatCompletions,
} from '../../support/fake-chat-completions.ts';

const KEY = 'sk-test-odd';
const test = suite<{ fake: FakeChatCompletions }>('llm executor: odd answers are invalid_response');

test.before(async (context) => {
  context.fake = await startFakeChatCompletions(KEY);
});
test.after(async ({ fake }) => {
  await fake.close();
});
test.before.each(({ fake }) => {
  fake.server.received.length = 0;
  fake.answers.length = 0;
});

const settings = (fake: FakeChatCompletions): LlmSettings => ({
  baseUrl: fake.baseUrl,
  apiKey: KEY,
  models: { very_fast: 'm-very-fast', fast: 'm-fast', balanced: 'm-balanced', smart: 'm-smart' },
  timeoutMs: 10_000,
  maxRetries: 2,
});
const noPrompts: PromptLoader = async () => undefined;

/** A 200 answer in the protocol's envelope, its first choice replaced by `choice`. */
const withChoice = (choice: unknown) => ({
  raw: { id: 'chatcmpl-odd', object: 'chat.completion', model: 'm-fast', choices: [choice] },
});

const ODD: [string, ChatAnswer][] = [
  ['no choices', { raw: { id: 'chatcmpl-odd', object: 'chat.completion', model: 'm-fast' } }],
  ['choices: []', { raw: { id: 'chatcmpl-odd', object: 'chat.completion', choices: [] } }],
  ['choices: null', { raw: { choices: null } }],
  ['choices not an array', { raw: { choices: { 0: { message: { content: 'x' } } } } }],
  ['a null choice', withChoice(null)],
  ['a choice without message', withChoice({ index: 0, finish_reason: 'stop' })],
  ['a null message', withChoice({ index: 0, message: null })],
  ['a message without content', withChoice({ index: 0, message: { role: 'assistant' } })],
  ['null content', { content: null }],
  ['numeric content', { content: 42 }],
  ['content parts', { content: [{ type: 'text', text: 'hi' }] }],
  ['a JSON null body', { raw: null }],
  ['a JSON array body', { raw: [{ choices: [] }] }],
  ['a JSON string body', { raw: 'hello' }],
  ['a body that is not JSON', { rawText: '{"choices": [' }],
  ['a text/plain body', { rawText: 'hello there', contentType: 'text/plain' }],
  ['an empty JSON body', { rawText: '' }],
];

test('each odd answer is the row error invalid_response after one call, never a throw', async ({ fake }) => {
  const run = llmExecutor({ settings: settings(fake), loadPrompt: noPrompts });
  const wrong: string[] = [];
  for (const [name, answer] of ODD) {
    fake.server.received.length = 0;
    fake.answers.push(answer);
    try {
      const outcome = await run(executorContext({ config: { provider: 'llm', prompt: 'x' } }));
      const seen = outcome.ok
        ? { ok: true, calls: fake.server.received.length }
        : {
            code: outcome.error.code,
            attempts: outcome.meta.attempts,
            httpStatus: outcome.meta.httpStatus,
            calls: fake.server.received.length,
            // The message says what was wrong without quoting the answer.
            quotes: /hello|Cannot read/.test(outcome.error.message),
          };
      const expected = { code: 'invalid_response', attempts: 1, httpStatus: 200, calls: 1, quotes: false };
      if (JSON.stringify(seen) !== JSON.stringify(expected)) wrong.push(`${name}: ${JSON.stringify(seen)}`);
    } catch (error) {
      wrong.push(`${name}: threw ${(error as Error).message}`);
    }
  }
  assert.equal(wrong, []);
});

test('a json column: text that is no JSON, or no text, is invalid_response after one call', async ({
  fake,
}) => {
  const run = llmExecutor({ settings: settings(fake), loadPrompt: noPrompts });
  for (const answer of [{ content: '{"a": 1' }, { content: '' }, { content: null }, withChoice({})]) {
    fake.server.received.length = 0;
    fake.answers.push(answer);
    const outcome = await run(
      executorContext({ config: { provider: 'llm', prompt: 'x' }, dataType: 'json' }),
    );
    assert.ok(!outcome.ok, JSON.stringify(answer));
    assert.equal(
      [outcome.error.code, outcome.meta.attempts],
      ['invalid_response', 1],
      JSON.stringify(answer),
    );
    assert.is(fake.server.received.length, 1);
  }
});

test('a well-formed answer still is the value (text as it is, JSON parsed)', async ({ fake }) => {
  const run = llmExecutor({ settings: settings(fake), loadPrompt: noPrompts });
  fake.answers.push({ content: 'plain' }, { content: '{"ok":true}' });
  const text = await run(executorContext({ config: { provider: 'llm', prompt: 'x' } }));
  assert.equal([text.ok, text.ok && text.value, text.meta.attempts], [true, 'plain', 1]);
  const json = await run(executorContext({ config: { provider: 'llm', prompt: 'x' }, dataType: 'json' }));
  assert.equal(json.ok && json.value, { ok: true });
});

test.run();
