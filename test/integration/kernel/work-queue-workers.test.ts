import * as assert from 'uvu/assert';
import { createLogger } from '../../../src/logger.ts';
import { enqueue } from '../../../src/work/queue.ts';
import { MAX_THROWS, Worker, type WorkerSpec } from '../../../src/work/worker.ts';
import type { TestDatabase } from '../../support/postgres.ts';
import { claimFor, item, now, statusOf, workQueueSuite } from '../../support/work-queue.ts';

/* Workers over the durable work queue (src/work/worker.ts): concurrency, retries of a throw, stopping. */
const test = workQueueSuite('work queue: workers');

const quiet = createLogger('silent');

test('a worker handles every item once, never more at once than its concurrency', async ({ db }) => {
  await enqueue(
    db.pool,
    Array.from({ length: 40 }, (_, i) => item(`w${i}`)),
  );
  let running = 0;
  let most = 0;
  const seen: string[] = [];
  const spec: WorkerSpec = {
    kind: 'test',
    concurrency: 4,
    pollMs: 20,
    handle: async (w) => {
      running++;
      most = Math.max(most, running);
      seen.push(w.id);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      return { status: 'done' };
    },
  };
  // Two processes' workers over one queue.
  const workers = [
    new Worker(db.pool, spec, { clock: now, logger: quiet, owner: 'p1' }),
    new Worker(db.pool, spec, { clock: now, logger: quiet, owner: 'p2' }),
  ];
  for (const w of workers) w.start();
  await until(async () => (await countBy(db, 'done')) === 40);
  await Promise.all(workers.map((w) => w.stop()));
  assert.is(seen.length, 40, 'each item handled once');
  assert.is(new Set(seen).size, 40);
  assert.ok(most <= 8, `at most 4 per worker at once, saw ${most}`);
});

test('a handler that keeps throwing is retried with backoff, then dead', async ({ db }) => {
  await enqueue(db.pool, [item('bad')]);
  let offset = 0;
  const clock = () => new Date(Date.now() + offset);
  let calls = 0;
  const worker = new Worker(
    db.pool,
    {
      kind: 'test',
      concurrency: 1,
      pollMs: 10,
      handle: async () => {
        calls++;
        throw new Error('boom');
      },
    },
    { clock, logger: quiet, owner: 'p' },
  );
  worker.start();
  for (let i = 1; i <= MAX_THROWS; i++) {
    await until(async () => calls >= i);
    offset += 3_600_000; // past any backoff
  }
  await until(async () => (await statusOf(db, 'bad'))?.status === 'dead');
  await worker.stop();
  assert.is(calls, MAX_THROWS);
  const { rows } = await db.pool.query('SELECT last_error FROM work_items WHERE id = $1', ['bad']);
  assert.is(rows[0].last_error, 'boom');
});

test('stopping a worker aborts what it holds and gives it back for another process', async ({ db }) => {
  await enqueue(db.pool, [item('long')]);
  let started = false;
  const worker = new Worker(
    db.pool,
    {
      kind: 'test',
      concurrency: 1,
      pollMs: 10,
      handle: (_w, signal) =>
        new Promise((_resolve, reject) => {
          started = true;
          signal.addEventListener('abort', () => reject(signal.reason));
        }),
    },
    { clock: now, logger: quiet, owner: 'p' },
  );
  worker.start();
  await until(async () => started);
  await worker.stop();
  assert.equal(await statusOf(db, 'long'), { status: 'pending', attempts: 1 });
  assert.is((await claimFor(db, 'other', 1)).length, 1);
});

async function countBy(db: TestDatabase, status: string): Promise<number> {
  const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM work_items WHERE status = $1', [
    status,
  ]);
  return rows[0].n;
}

/** Polls `check` until it holds; a deadline far beyond need (a hang fails rather than waits forever). */
async function until(check: () => Promise<boolean>, deadlineMs = 30_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test.run();
