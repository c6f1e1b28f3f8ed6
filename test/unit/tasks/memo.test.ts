import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { memoize } from '../../../queries/tasks/memo.ts';

test('memoize: computes once per input, keeps the most recently used, freezes what it keeps', () => {
  const calls: string[] = [];
  const compile = memoize(
    (input: { q: string }) => {
      calls.push(input.q);
      return { sql: `-- ${input.q}`, values: [input.q] };
    },
    { entries: 2, maxKeyLength: 20 },
  );
  const a = compile({ q: 'a' });
  assert.is(compile({ q: 'a' }), a, 'the same input: the kept result');
  compile({ q: 'b' });
  compile({ q: 'a' }); // a is now the most recent: b goes first
  compile({ q: 'c' });
  assert.is(compile.size, 2);
  compile({ q: 'a' });
  compile({ q: 'b' });
  assert.equal(calls, ['a', 'b', 'c', 'b'], 'b was evicted, a was not');
  assert.ok(Object.isFrozen(a) && Object.isFrozen(a.values), 'a caller cannot change what the next one gets');
  assert.throws(() => (a.values as string[]).push('x'));
});

test('memoize: a long key or a result not to keep is computed every time; a throw is not kept', () => {
  let count = 0;
  const f = memoize(
    (input: string) => {
      count++;
      if (input === 'bad') throw new Error('bad');
      return { ok: input !== 'refused' };
    },
    { entries: 10, maxKeyLength: 12, keep: (r) => r.ok },
  );
  f('x'.repeat(20));
  f('x'.repeat(20));
  f('refused');
  f('refused');
  assert.throws(() => f('bad'));
  assert.throws(() => f('bad'));
  assert.is(count, 6);
  assert.is(f.size, 0);
});

test.run();
