import { readdirSync, readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { llmSettingsFrom } from '../../../processes/runs/executors/llm.ts';
import {
  COLUMN_PROVIDERS,
  ConfigCreateSchema,
  creditsPerRow,
  executorsFrom,
  PROVIDER_SPECS,
  runConcurrency,
  validateColumnConfig,
} from '../../../processes/runs/providers/index.ts';
import { loadConfig } from '../../../src/config.ts';
import { NOTHING_DONE_CODES } from '../../../src/domain/runs/charge-rules.ts';
import { OutboundClient } from '../../../src/net/outbound.ts';

const test = suite('column providers: one registry, every provider whole');

test('every provider has a name, a config schema, a price, a concurrency, charge rules and an executor', async () => {
  const outbound = new OutboundClient({ policy: { allowPrivateNetwork: false } });
  const deps = { outbound, llm: llmSettingsFrom(loadConfig({})), loadPrompt: async () => undefined };
  const executorFor = executorsFrom(deps);
  assert.ok(COLUMN_PROVIDERS.length > 0);
  for (const provider of COLUMN_PROVIDERS) {
    const { name } = provider;
    const config = { provider: name };
    assert.match(name, /^[a-z][a-z0-9_]{0,62}$/, `${name}: a lower snake case key`);
    assert.type(provider.configSchema?.safeParse, 'function', `${name}: a zod config schema`);
    assert.type(
      provider.configSchema.meta()?.id,
      'string',
      `${name}: its schema has an id in the OpenAPI document`,
    );
    assert.type(provider.refs(config), 'object', `${name}: refs`);
    const price = provider.price(config);
    assert.ok(Number.isInteger(price) && price >= 0, `${name}: a price in whole credits`);
    assert.is(creditsPerRow(config), price, `${name}: creditsPerRow is its price`);
    const concurrency = provider.concurrency(config);
    assert.ok(Number.isInteger(concurrency) && concurrency > 0, `${name}: a concurrency`);
    assert.is(runConcurrency(config), concurrency, `${name}: runConcurrency is its concurrency`);
    assert.ok(provider.noChargeCodes instanceof Set, `${name}: no-charge codes`);
    assert.type(provider.executor(deps), 'function', `${name}: an executor`);
    assert.type(executorFor(config), 'function', `${name}: executorsFrom finds it`);
    assert.ok(PROVIDER_SPECS.has(name), `${name}: validation knows it`);
  }
  await outbound.close();
});

test('names are unique; the common charge rules by default', () => {
  const names = COLUMN_PROVIDERS.map((p) => p.name);
  assert.equal(new Set(names).size, names.length);
  for (const provider of COLUMN_PROVIDERS)
    assert.is(provider.noChargeCodes, NOTHING_DONE_CODES, provider.name);
});

test('the OpenAPI description of config lists every provider; an unknown one is refused naming them', () => {
  const described = ConfigCreateSchema.description ?? '';
  for (const { name } of COLUMN_PROVIDERS) assert.ok(described.includes(name), `${name} is described`);
  const refused = validateColumnConfig(
    { provider: 'http_requests' },
    { organizationId: 'o1', columns: [], tables: new Map() },
  );
  assert.not.ok(refused.ok);
  if (refused.ok) return;
  assert.equal(
    refused.errors.map((e) => e.path),
    ['config.provider'],
  );
  for (const { name } of COLUMN_PROVIDERS) assert.ok(refused.errors[0]!.message.includes(name), name);
});

test('docs name every provider: its price in docs/rows.md, its config in another doc', () => {
  const docs = new URL('../../../docs/', import.meta.url);
  const read = (name: string) => readFileSync(new URL(name, docs), 'utf8');
  const others = readdirSync(docs)
    .filter((name) => name.endsWith('.md') && name !== 'rows.md')
    .map(read);
  for (const { name } of COLUMN_PROVIDERS) {
    assert.ok(read('rows.md').includes(`\`${name}\``), `docs/rows.md prices ${name}`);
    assert.ok(
      others.some((text) => text.includes(`\`${name}\``)),
      `a doc besides docs/rows.md describes ${name}`,
    );
  }
});

test.run();
