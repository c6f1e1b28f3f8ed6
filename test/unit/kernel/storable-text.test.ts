import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cutText, storableText, textProblem } from '../../../src/db/storable-text.ts';

const test = suite('storable text: what PostgreSQL refuses, found, taken out, and cut without halves');

test('a NUL and an unpaired surrogate are problems; a pair is not', () => {
  assert.match(textProblem('a\u0000b')!, /NUL/);
  assert.match(textProblem('lone \ud800 half')!, /unpaired/);
  assert.match(textProblem('\udc00 low first')!, /unpaired/);
  assert.is(textProblem('fine 😀 text'), undefined);
});

test('storableText drops NULs and replaces unpaired halves, keeping pairs', () => {
  assert.is(storableText('a\u0000b\u0000'), 'ab');
  assert.is(storableText('x\ud800y\udc00z'), 'x\ufffdy\ufffdz');
  assert.is(storableText('😀\ud83d'), '😀\ufffd');
  assert.is(storableText('plain'), 'plain');
  assert.is(textProblem(storableText('\u0000\ud800😀\udfff')), undefined);
});

test('cutText never ends in the first half of a pair', () => {
  const emoji = '😀'.repeat(10); // 20 code units
  assert.is(cutText(emoji, 20), emoji);
  assert.is(cutText(emoji, 7), '😀😀😀');
  assert.is(cutText(emoji, 8), '😀😀😀😀');
  assert.is(cutText('abc', 2), 'ab');
  for (let max = 1; max <= 20; max++)
    assert.is(textProblem(cutText(`a${emoji}`, max)), undefined, `max ${max}`);
});

test.run();
