import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { llmSettingsFrom } from '../../../processes/runs/executors/llm.ts';
import { notImplementedExecutor } from '../../../processes/runs/executors/not-implemented.ts';
import { RowTemplates } from '../../../processes/runs/executors/render.ts';
import { syncToTableExecutor } from '../../../processes/runs/executors/sync-to-table.ts';
import { executorsFrom, runConcurrency } from '../../../processes/runs/providers/index.ts';
import { loadConfig } from '../../../src/config.ts';
import { NOTHING_DONE_CODES, SKIP_CODES } from '../../../src/domain/runs/charge-rules.ts';
import { OutboundClient } from '../../../src/net/outbound.ts';
import { executorContext } from '../../support/executor-context.ts';

const test = suite('executor templates and dispatch');

const templates = (
  cells: Record<string, unknown>,
  secrets: Record<string, string> = {},
  withSecrets = true,
) => {
  const context = executorContext({ config: {}, cells, secrets });
  return { context, render: new RowTemplates(context, { secrets: withSecrets }) };
};

test('text: cells as text (empty for null or absent, JSON for objects), secrets resolved once', async () => {
  const { context, render } = templates({ a: 'x', n: 3, b: true, o: { k: [1] }, z: null }, { token: 'T' });
  const out = await render.text(
    '{{a}}|{{ n }}|{{b}}|{{o}}|{{z}}|{{missing}}|{{secrets.token}}{{secrets.token}}',
  );
  assert.equal(out, { ok: true, value: 'x|3|true|{"k":[1]}|||TT' });
  assert.equal(context.secretsAsked, ['token']);
  const again = await render.text('{{secrets.token}}');
  assert.equal(again, { ok: true, value: 'T' });
  assert.equal(context.secretsAsked, ['token'], 'one row reads a secret once');
});

test('text: a missing secret is secret_not_found naming it; without secrets the placeholder stays', async () => {
  const { render } = templates({});
  assert.equal(await render.text('a {{secrets.nope}}'), {
    ok: false,
    error: { code: 'secret_not_found', message: 'no workspace secret is named nope' },
  });
  const plain = templates({ a: '1' }, { k: 'v' }, false);
  assert.equal(await plain.render.text('{{a}} {{secrets.k}}'), { ok: true, value: '1 {{secrets.k}}' });
  assert.equal(plain.context.secretsAsked, []);
});

test('text: the encoder sees each value and where it lands', async () => {
  const { render } = templates({ q: 'a&b c', base: 'http://h' });
  const out = await render.text('{{base}}/x?q={{q}}', (text, offset) =>
    offset === 0 ? text : encodeURIComponent(text),
  );
  assert.equal(out, { ok: true, value: 'http://h/x?q=a%26b%20c' });
});

test('json: strings rendered one by one; a lone placeholder keeps the cell type', async () => {
  const { render } = templates({ s: 'say "hi"\n', n: 42, o: { deep: true }, z: null }, { k: 'S' });
  const out = await render.json({
    text: 'v={{s}}',
    number: '{{n}}',
    object: '{{o}}',
    empty: '{{z}}',
    absent: '{{nope}}',
    secret: '{{secrets.k}}',
    list: ['{{n}}', 'n={{n}}', 7, null, false],
    '{{s}}': 'keys stay as written',
  });
  assert.equal(out, {
    ok: true,
    value: {
      text: 'v=say "hi"\n',
      number: 42,
      object: { deep: true },
      empty: null,
      absent: null,
      secret: 'S',
      list: [42, 'n=42', 7, null, false],
      '{{s}}': 'keys stay as written',
    },
  });
  const missing = await render.json({ deep: [{ x: '{{secrets.gone}}' }] });
  assert.ok(!missing.ok && missing.error.code === 'secret_not_found');
});

test('executorsFrom picks by provider; others (and the lead providers without a store) are provider_not_implemented', async () => {
  const outbound = new OutboundClient({ policy: { allowPrivateNetwork: false } });
  const executorFor = executorsFrom({
    outbound,
    llm: llmSettingsFrom(loadConfig({})),
    loadPrompt: async () => undefined,
  });
  assert.is(executorFor({ provider: 'sync_to_table' }), syncToTableExecutor);
  assert.is.not(executorFor({ provider: 'http_request' }), notImplementedExecutor);
  assert.is.not(executorFor({ provider: 'llm' }), notImplementedExecutor);
  for (const provider of ['add_to_crm', 'add_to_sequence', 'lead_finder', undefined]) {
    const executor = executorFor({ provider });
    assert.is(executor, notImplementedExecutor);
    const outcome = await executor(executorContext({ config: { provider } }));
    assert.equal(outcome, {
      ok: false,
      error: { code: 'provider_not_implemented', message: `provider ${provider ?? 'none'} cannot run yet` },
      meta: { durationMs: 0, attempts: 0 },
    });
  }
  await outbound.close();
});

test('run concurrency: http_request config.concurrency, else 8', () => {
  assert.is(runConcurrency({ provider: 'http_request', concurrency: 64 }), 64);
  assert.is(runConcurrency({ provider: 'http_request' }), 8);
  assert.is(runConcurrency({ provider: 'llm', concurrency: 3 }), 8);
});

test('docs/runs.md lists the row error codes, and which ones come before anything is done', () => {
  const doc = readFileSync(new URL('../../../docs/runs.md', import.meta.url), 'utf8');
  const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| [^|]+ \| (yes|no) \|/gm)].map(
    (m) => [m[1]!, m[2]!] as const,
  );
  const listed = new Map(rows);
  assert.equal(
    rows
      .filter(([, free]) => free === 'yes')
      .map(([code]) => code)
      .sort(),
    [...NOTHING_DONE_CODES].sort(),
  );
  for (const code of SKIP_CODES) assert.is(listed.get(code), 'yes', code);
  const outbound = [
    'invalid_url',
    'invalid_request',
    'target_not_allowed',
    'timeout',
    'connection_failed',
    'too_many_redirects',
    'aborted',
  ];
  for (const code of outbound) assert.ok(listed.has(code), `${code} is documented`);
});

test.run();
