import * as assert from 'uvu/assert';
import { bearer, call } from '../../support/accounts.ts';
import { createPrompt, promptPath } from '../../support/prompts.ts';
import { tablesSuite } from '../../support/tables.ts';

/*
 * Template amplification (issue 34, item 1): a template of `{{v}}` 20,000 times (100,000 characters,
 * within the limit) rendered with a 10,000-character value answered 200 with a 190 MiB body after
 * 3.3 s; with 30,000 characters it was a 500 (RangeError in renderTemplate). A render produces at most
 * 2,000,000 characters: over that, a 422 naming the variable, without building the text.
 */
const test = tablesSuite('prompts API: what a render may produce is bounded');

const render = (t: Parameters<typeof call>[0], key: string, id: string, v: string) =>
  call(t, 'POST', `${promptPath(id)}/render`, { headers: bearer(key), body: { variables: { v } } });

test('the probe: 20,000 placeholders with a 10,000- or 30,000-character value are a 422 naming variables.v', async ({
  t,
  key,
}) => {
  const prompt = await createPrompt(t.app, key, { name: 'amplifier', template: '{{v}}'.repeat(20_000) });
  for (const size of [10_000, 30_000]) {
    const started = performance.now();
    const res = await render(t.app, key, prompt.id, 'x'.repeat(size));
    assert.is(res.status, 422, `${size}: ${String(res.status)}`);
    assert.is(res.body.code, 'template_output_too_large');
    assert.equal(
      res.body.errors.map((e: { path: string }) => e.path),
      ['variables.v'],
    );
    assert.match(res.body.detail, /over the 2,000,000 a render may produce/);
    assert.ok(
      performance.now() - started < 2_000,
      `answered in ${Math.round(performance.now() - started)} ms`,
    );
  }
});

test('up to the bound the text is rendered: 2,000,000 characters exactly', async ({ t, key }) => {
  const prompt = await createPrompt(t.app, key, { name: 'at the bound', template: '{{v}}'.repeat(20_000) });
  const at = await render(t.app, key, prompt.id, 'x'.repeat(100));
  assert.is(at.status, 200);
  assert.is(at.body.text.length, 2_000_000);
  assert.is((await render(t.app, key, prompt.id, 'x'.repeat(101))).status, 422);
});

test.run();
