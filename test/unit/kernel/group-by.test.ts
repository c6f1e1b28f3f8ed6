import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { groupBy } from '../../../src/group-by.ts';

test('groups keep the order their keys first appear, and each group the order of its items', () => {
  const groups = groupBy(['b1', 'a1', 'b2', 'c1', 'a2'], (s) => s[0]);
  assert.equal(
    [...groups],
    [
      ['b', ['b1', 'b2']],
      ['a', ['a1', 'a2']],
      ['c', ['c1']],
    ],
  );
});

test('no items, no groups', () => {
  assert.is(groupBy([], String).size, 0);
});

test.run();
