import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { creditsPerRow } from '../../../processes/runs/providers/index.ts';
import {
  DEFAULT_LLM_LANE,
  LLM_LANE_CREDITS,
  PROVIDER_CREDITS,
  UNKNOWN_PROVIDER_CREDITS,
} from '../../../src/credits/prices.ts';

test('credits per row by provider and llm lane', () => {
  assert.is(creditsPerRow({}), 0);
  assert.is(creditsPerRow({ provider: 'llm', llmLane: 'very_fast' }), 1);
  assert.is(creditsPerRow({ provider: 'llm' }), LLM_LANE_CREDITS[DEFAULT_LLM_LANE]);
  assert.is(
    creditsPerRow({ provider: 'llm', llmLane: 'galaxy_brain' }),
    Math.max(...Object.values(LLM_LANE_CREDITS)),
  );
  assert.is(creditsPerRow({ provider: 'http_request' }), 1);
  assert.is(creditsPerRow({ provider: 'add_to_sequence' }), 0);
  assert.is(creditsPerRow({ provider: 'something_new' }), UNKNOWN_PROVIDER_CREDITS);
  assert.is(
    creditsPerRow({ provider: 'toString' }),
    UNKNOWN_PROVIDER_CREDITS,
    'no inherited property is a price',
  );
});

test('docs/rows.md shows the same prices as the code', () => {
  const doc = readFileSync(new URL('../../../docs/rows.md', import.meta.url), 'utf8');
  const rows = new Map([...doc.matchAll(/^\| (.+?) \| (\d+) \|$/gm)].map((m) => [m[1]!, Number(m[2])]));
  for (const [lane, credits] of Object.entries(LLM_LANE_CREDITS)) {
    const row = [...rows.keys()].find((k) => k.startsWith(`\`llm\`, \`llmLane\` \`${lane}\``));
    assert.ok(row, `docs/rows.md has no row for the ${lane} lane`);
    assert.is(rows.get(row!), credits, lane);
  }
  for (const [provider, credits] of Object.entries(PROVIDER_CREDITS))
    assert.is(rows.get(`\`${provider}\``), credits, provider);
  assert.is(rows.get('another provider'), UNKNOWN_PROVIDER_CREDITS);
  assert.is(rows.get('none (an input column)'), 0);
});

test.run();
