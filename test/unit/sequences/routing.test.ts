import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nextAssignee, type Route } from '../../../src/domain/sequences/routing.ts';

/** Routes n leads one after another; after each, every count is within one of its weight's share. */
function assertFair(plan: Route[], n: number) {
  const counts = new Map<string, number>();
  const total = plan.reduce((sum, r) => sum + (r.weight ?? 1), 0);
  for (let i = 1; i <= n; i++) {
    const who = nextAssignee(plan, counts);
    counts.set(who, (counts.get(who) ?? 0) + 1);
    for (const route of plan) {
      const share = (i * (route.weight ?? 1)) / total;
      const count = counts.get(route.assigneeUserId) ?? 0;
      assert.ok(
        Math.abs(count - share) <= 1 + 1e-9,
        `${route.assigneeUserId}: ${count} of ${i}, share ${share}`,
      );
    }
  }
}

test('round robin: equal weights take turns in plan order', () => {
  const plan = [{ assigneeUserId: 'a' }, { assigneeUserId: 'b' }, { assigneeUserId: 'c' }];
  const counts = new Map<string, number>();
  const order: string[] = [];
  for (let i = 0; i < 6; i++) {
    const who = nextAssignee(plan, counts);
    order.push(who);
    counts.set(who, (counts.get(who) ?? 0) + 1);
  }
  assert.equal(order, ['a', 'b', 'c', 'a', 'b', 'c']);
});

test('weighted: 3:1 gives three of every four to the first', () => {
  const plan = [
    { assigneeUserId: 'a', weight: 3 },
    { assigneeUserId: 'b', weight: 1 },
  ];
  const counts = new Map<string, number>();
  for (let i = 0; i < 40; i++) {
    const who = nextAssignee(plan, counts);
    counts.set(who, (counts.get(who) ?? 0) + 1);
  }
  assert.equal(Object.fromEntries(counts), { a: 30, b: 10 });
});

test('property: for any weights, after every lead each count is within one of its share', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.integer({ min: 1, max: 10 }), fc.double({ min: 0.1, max: 100, noNaN: true })), {
        minLength: 1,
        maxLength: 8,
      }),
      fc.integer({ min: 1, max: 300 }),
      (weights, n) =>
        assertFair(
          weights.map((weight, i) => ({ assigneeUserId: `u${i}`, weight })),
          n,
        ),
    ),
    { numRuns: 500 },
  );
});

test.run();
