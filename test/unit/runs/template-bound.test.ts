import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { httpRequestExecutor } from '../../../processes/runs/executors/http-request.ts';
import { type LlmSettings, llmExecutor } from '../../../processes/runs/executors/llm.ts';
import { RowTemplates } from '../../../processes/runs/executors/render.ts';
import { MAX_RENDERED_CHARS } from '../../../src/domain/prompts/template.ts';
import { renderForLead } from '../../../src/domain/tasks/draft.ts';
import { AppError } from '../../../src/errors.ts';
import type { OutboundClient } from '../../../src/net/outbound.ts';
import { executorContext } from '../../support/executor-context.ts';

/*
 * What a render may produce is bounded wherever templates render in column runs and drafts (issue 34,
 * item 1): an http_request body of 20,000 placeholders filled with a long cell failed the row as
 * `internal` (RangeError: Invalid string length) after building hundreds of MB. Over the bound the
 * row fails with its own code, template_output_too_large, before anything is built or sent.
 */

const repeated = (placeholder: string, times: number) => placeholder.repeat(times);
const long = 'x'.repeat(10_000);

test('RowTemplates.text: over the bound is template_output_too_large naming the placeholder', async () => {
  const templates = new RowTemplates(executorContext({ config: {}, cells: { v: long } }));
  const rendered = await templates.text(repeated('{{v}}', 20_000));
  assert.ok(!rendered.ok);
  assert.is(rendered.error.code, 'template_output_too_large');
  assert.match(rendered.error.message, /\{\{v\}\}/);
  // Up to the bound it renders.
  const fits = new RowTemplates(executorContext({ config: {}, cells: { v: 'x'.repeat(100) } }));
  const at = await fits.text(repeated('{{v}}', MAX_RENDERED_CHARS / 100));
  assert.ok(at.ok && at.value.length === MAX_RENDERED_CHARS);
});

test('RowTemplates: the bound holds for everything one row renders (URL, headers, body together)', async () => {
  const templates = new RowTemplates(executorContext({ config: {}, cells: { v: 'x'.repeat(100_000) } }));
  for (let i = 0; i < 19; i++) assert.ok((await templates.text('{{v}}')).ok, `render ${i}`);
  assert.ok((await templates.text('{{v}}')).ok, 'the 20th reaches the bound');
  const over = await templates.text('{{v}}');
  assert.ok(!over.ok && over.error.code === 'template_output_too_large');
});

test('RowTemplates.json: a JSON cell put in whole counts as its JSON text; strings inside count', async () => {
  const cells = { doc: { text: 'y'.repeat(100_000) }, v: long };
  const wholes = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, '{{doc}}']));
  const whole = await new RowTemplates(executorContext({ config: {}, cells })).json(wholes);
  assert.ok(
    !whole.ok && whole.error.code === 'template_output_too_large' && /\{\{doc\}\}/.test(whole.error.message),
  );
  const strings = Array.from({ length: 300 }, () => '{{v}}');
  const inside = await new RowTemplates(executorContext({ config: {}, cells })).json({ a: strings });
  assert.ok(!inside.ok && inside.error.code === 'template_output_too_large');
});

test('http_request: a body over the bound fails the row before anything is sent (not internal)', async () => {
  let sent = 0;
  const client = {
    request: async () => {
      sent++;
      throw new Error('nothing is sent');
    },
  } as unknown as OutboundClient;
  const execute = httpRequestExecutor(client);
  for (const config of [
    { url: 'https://api.example.org/x', method: 'POST', body: repeated('{{v}}', 20_000) },
    { url: 'https://api.example.org/x', method: 'POST', body: { q: repeated('{{v}}', 20_000) } },
    { url: `https://api.example.org/x?q=${repeated('{{v}}', 800)}`, method: 'GET' },
    { url: 'https://api.example.org/x', method: 'GET', headers: { 'X-A': repeated('{{v}}', 1_000) } },
  ]) {
    const outcome = await execute(
      executorContext({ config: { provider: 'http_request', ...config }, cells: { v: long } }),
    );
    assert.ok(!outcome.ok, JSON.stringify(config).slice(0, 80));
    assert.is(!outcome.ok && outcome.error.code, 'template_output_too_large');
  }
  // A 30,000-character cell (past what a string can hold, the RangeError) is the same row error.
  const huge = await execute(
    executorContext({
      config: {
        provider: 'http_request',
        url: 'https://api.example.org/x',
        method: 'POST',
        body: repeated('{{v}}', 20_000),
      },
      cells: { v: 'z'.repeat(30_000) },
    }),
  );
  assert.is(!huge.ok && huge.error.code, 'template_output_too_large');
  assert.is(sent, 0);
});

test('llm: a prompt (a template or config.prompt) over the bound fails the row without calling the API', async () => {
  const settings: LlmSettings = {
    // Never reached: the prompt fails first.
    baseUrl: 'http://127.0.0.1:9/v1',
    apiKey: 'unused',
    models: { very_fast: 'm', fast: 'm', balanced: 'm', smart: 'm' },
    timeoutMs: 1_000,
    maxRetries: 0,
  };
  const loadPrompt = async () => ({
    template: repeated('{{v}}', 20_000),
    variables: [{ name: 'v', required: true }],
    version: 3,
  });
  const execute = llmExecutor({ settings, loadPrompt });
  const fromTemplate = await execute(
    executorContext({ config: { provider: 'llm', promptTemplateId: 'prm_1' }, cells: { v: long } }),
  );
  assert.ok(!fromTemplate.ok);
  assert.is(fromTemplate.error.code, 'template_output_too_large');
  assert.match(fromTemplate.error.message, /version 3.*\{\{v\}\} \(20000 times\)/);
  const fromPrompt = await execute(
    executorContext({ config: { provider: 'llm', prompt: repeated('{{v}}', 20_000) }, cells: { v: long } }),
  );
  assert.is(!fromPrompt.ok && fromPrompt.error.code, 'template_output_too_large');
});

test('a task email draft over the bound is a 422 naming the draft field', () => {
  const lead = {
    firstName: null,
    lastName: null,
    fullName: 'n'.repeat(500),
    title: null,
    companyName: null,
    companyDomain: null,
    linkedinUrl: null,
    emailAddresses: [{ address: 'a@example.org', source: 'manual' }],
    phoneNumbers: [],
    sources: [],
  };
  const body = repeated('Dear {{fullName}}, ', 8_000);
  try {
    renderForLead(body, lead as never, 'body');
    assert.unreachable('a draft over the bound');
  } catch (error) {
    assert.instance(error, AppError);
    const problem = error as AppError;
    assert.equal([problem.code, problem.status], ['template_output_too_large', 422]);
    assert.equal(
      (problem.extra.errors ?? []).map((e) => e.path),
      ['body'],
    );
  }
  assert.is(renderForLead('Dear {{fullName}}', lead as never), `Dear ${'n'.repeat(500)}`);
});

test.run();
