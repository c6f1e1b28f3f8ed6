import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Pool } from '../../../src/db/pool.ts';
import { createLogger } from '../../../src/logger.ts';
import { enqueue } from '../../../src/work/queue.ts';
import type { WorkerSpec } from '../../../src/work/worker.ts';
import { Workers } from '../../../src/work/workers.ts';
import { eventually } from '../../support/eventually.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';

/*
 * A general nudge (after every projection commit) wakes only the workers of kinds this process has
 * enqueued items of since the last one: waking every idle worker on every commit cost a claim per kind
 * per commit, most of them finding nothing.
 */
const test = suite<{ db: TestDatabase }>('work queue: nudges wake the kinds with new items');
test.before.each(async (ctx) => {
  ctx.db = await freshDatabase();
});
test.after.each(async ({ db }) => db.drop());

/** The pool, counting the claims of each kind. */
function countingClaims(pool: Pool) {
  const claims = new Map<string, number>();
  const counted = new Proxy(pool, {
    get(target, property) {
      if (property === 'query') {
        return (text: string, params?: unknown[]) => {
          if (typeof text === 'string' && text.includes('work_claim')) {
            const kind = String(params?.[0]);
            claims.set(kind, (claims.get(kind) ?? 0) + 1);
          }
          return target.query(text, params);
        };
      }
      const value = Reflect.get(target, property);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { pool: counted, claims: (kind: string) => claims.get(kind) ?? 0 };
}

/** Workers of a kind that note each item handled; polls far apart: every claim after the first is a nudge's. */
const recordingSpec = (handled: string[]) => (kind: string) => ({
  kind,
  concurrency: 2,
  pollMs: 600_000,
  async handle(item: { id: string }) {
    handled.push(item.id);
    return { status: 'done' as const };
  },
});

test('a general nudge wakes the kind that was enqueued, not the others; a named nudge wakes its kind', async ({
  db,
}) => {
  const { pool, claims } = countingClaims(db.pool);
  const handled: string[] = [];
  const spec = recordingSpec(handled);
  const workers = new Workers(pool, { clock: () => new Date(), logger: createLogger('silent') });
  workers.start([spec('nudge-a'), spec('nudge-b')]);
  try {
    await eventually('the first look of each', () => claims('nudge-a') >= 1 && claims('nudge-b') >= 1);
    workers.nudge(); // nothing enqueued since the start: wakes nobody
    await enqueue(db.pool, [{ id: 'a1', kind: 'nudge-a', organizationId: 'org-1', payload: {} }]);
    const [a, b] = [claims('nudge-a'), claims('nudge-b')];
    workers.nudge();
    await eventually('a1 handled', () => handled.includes('a1'));
    assert.ok(claims('nudge-a') > a, 'the enqueued kind looked again');
    assert.is(claims('nudge-b'), b, 'the other kind did not');
    workers.nudge('nudge-b');
    await eventually('b looked again', () => claims('nudge-b') > b);
  } finally {
    await workers.stop();
  }
});

test("a commit's nudge of named kinds wakes those of them just enqueued, not the others named", async ({
  db,
}) => {
  const { pool, claims } = countingClaims(db.pool);
  const handled: string[] = [];
  const spec = recordingSpec(handled);
  const workers = new Workers(pool, { clock: () => new Date(), logger: createLogger('silent') });
  workers.start([spec('named-a'), spec('named-b'), spec('named-c')]);
  try {
    await eventually('the first look of each', () =>
      ['named-a', 'named-b', 'named-c'].every((k) => claims(k) >= 1),
    );
    await enqueue(db.pool, [{ id: 'c1', kind: 'named-c', organizationId: 'org-1', payload: {} }]);
    const [a, b] = [claims('named-a'), claims('named-b')];
    workers.nudgeEnqueued(['named-a', 'named-b']); // named, but nothing of theirs enqueued
    workers.nudgeEnqueued(['named-c', 'named-a']);
    await eventually('c1 handled', () => handled.includes('c1'));
    assert.is(claims('named-a'), a, 'named, nothing enqueued: no claim');
    assert.is(claims('named-b'), b);
  } finally {
    await workers.stop();
  }
});

/**
 * A worker whose poll is ten minutes away, over one item that asks to be retried `afterMs` later by
 * `clock` (`onRetry` runs as it does), worked until `done` says so of the attempts seen (or 30 s pass: only a hang takes that long).
 */
async function retrying(
  db: TestDatabase,
  options: { clock?: () => Date; afterMs: number; onRetry?: () => void },
  done: (attempts: number[]) => Promise<boolean> | boolean,
): Promise<number[]> {
  const clock = options.clock ?? (() => new Date());
  const attempts: number[] = [];
  const workers = new Workers(db.pool, { clock, logger: createLogger('silent') });
  const specs: WorkerSpec[] = [
    {
      kind: 'retry-soon',
      concurrency: 1,
      pollMs: 600_000,
      async handle(item) {
        attempts.push(item.attempts);
        if (item.attempts > 1) return { status: 'done' };
        options.onRetry?.();
        return { status: 'retry', at: new Date(clock().getTime() + options.afterMs), error: 'not yet' };
      },
    },
  ];
  await enqueue(db.pool, [{ id: 'r1', kind: 'retry-soon', organizationId: 'org-1', payload: {} }]);
  workers.start(specs);
  try {
    await eventually('done', () => done(attempts), 30_000).catch(() => {});
    return attempts;
  } finally {
    await workers.stop();
  }
}

const workedAgain = (attempts: number[]) => attempts.length === 2;

test('a retry of its own wakes the worker when it comes due, not at its next poll', async ({ db }) => {
  assert.equal(await retrying(db, { afterMs: 50 }, workedAgain), [1, 2]);
});

test('a retry is claimed when it comes due by the clock the claims use, set back after it was scheduled', async ({
  db,
}) => {
  // Set back 40 ms while the retry waits: nudged only on time by its timer, the claim would find the
  // item 40 ms early and leave it to the poll.
  let setBack = 0;
  const clock = () => new Date(Date.now() - setBack);
  const onRetry = () =>
    setTimeout(() => {
      setBack = 40;
    }, 10);
  assert.equal(await retrying(db, { clock, afterMs: 50, onRetry }, workedAgain), [1, 2]);
});

test('a retry weeks ahead waits on one timer (a Node timer holds at most 24.8 days)', async ({ db }) => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on('warning', onWarning);
  try {
    const afterMs = 30 * 24 * 3_600_000;
    // Worked once, then 200 ms to see whether its timer fires again and again.
    const attempts = await retrying(db, { afterMs }, async (seen) => {
      if (seen.length < 1) return false;
      await new Promise((r) => setTimeout(r, 200));
      return true;
    });
    assert.equal(attempts, [1]);
    assert.equal(warnings, [], 'no timer overflowed (one would fire again every millisecond)');
  } finally {
    process.off('warning', onWarning);
  }
});

test.run();
