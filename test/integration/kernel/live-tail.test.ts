import type pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Position, RecordedEvent } from '../../../src/event-store/port.ts';
import { comparePositions, START } from '../../../src/event-store/port.ts';
import { LiveTail } from '../../../src/event-store/postgres-live-tail.ts';
import { eventually } from '../../support/eventually.ts';
import { freshDatabase, type TestDatabase } from '../../support/postgres.ts';

const test = suite<{ db: TestDatabase }>('live tail');
test.before(async (ctx) => {
  ctx.db = await freshDatabase();
});
test.after(async (ctx) => ctx.db.drop());

const event = (n: number): RecordedEvent => ({
  id: `e${n}`,
  stream: 's',
  revision: BigInt(n),
  position: { commit: 1n, prepare: BigInt(n) },
  type: 'Tested',
  data: { n },
  metadata: {},
  recordedAt: new Date(),
});

test('followers at the same cursor share one page read; each still gets every event', async ({ db }) => {
  const log: RecordedEvent[] = [];
  const underWay = new Map<string, number>();
  let reads = 0;
  let sharedCursorAtOnce = 0;
  const readPage = async (from: Position, limit: number) => {
    const key = `${from.commit}:${from.prepare}`;
    if (underWay.get(key)) sharedCursorAtOnce++;
    underWay.set(key, (underWay.get(key) ?? 0) + 1);
    reads++;
    await new Promise((r) => setTimeout(r, 5));
    underWay.set(key, underWay.get(key)! - 1);
    return log.filter((e) => comparePositions(e.position, from) > 0).slice(0, limit);
  };
  const tail = new LiveTail(db.pool, readPage, 100);
  const seen: number[][] = [[], [], [], [], [], []];
  const subscriptions = seen.map((got) =>
    tail.follow(START).subscribe((e) => got.push((e.data as { n: number }).n)),
  );
  try {
    for (let round = 0; round < 5; round++) {
      log.push(...[1, 2, 3].map((i) => event(round * 3 + i)));
      tail.appended();
      await eventually('every follower to see the round', () => seen.every((g) => g.length === log.length));
    }
    const expected = log.map((e) => (e.data as { n: number }).n);
    for (const got of seen) assert.equal(got, expected);
    assert.is(sharedCursorAtOnce, 0, 'no two reads of one cursor were under way at once');
    // Six followers, five appends: one read per wake-up (and poll), not one per follower.
    assert.ok(reads < seen.length * 5, `${reads} page reads for ${seen.length} followers`);
  } finally {
    for (const s of subscriptions) s.unsubscribe();
    await tail.close();
  }
});

test('a wake-up that comes while a read is under way is not lost: the followers read again', async ({
  db,
}) => {
  const log: RecordedEvent[] = [];
  let gate: Promise<void> | undefined;
  // The page is what the log held when the read began, answered when the gate opens: a read that
  // started before an append commits does not see it.
  const readPage = async (from: Position, limit: number) => {
    const page = log.filter((e) => comparePositions(e.position, from) > 0).slice(0, limit);
    await gate;
    return page;
  };
  // No polling to fall back on, and no NOTIFY coming back to this process's own LISTEN (which would
  // wake the followers a second time): only the in-process wake-ups move the followers.
  const noNotify = { options: db.pool.options, query: async () => ({ rows: [] }) } as unknown as pg.Pool;
  const tail = new LiveTail(noNotify, readPage, 100, { minMs: 600_000, maxMs: 600_000 });
  const seen: number[][] = [[], []];
  const subscriptions = seen.map((got) =>
    tail.follow(START).subscribe((e) => got.push((e.data as { n: number }).n)),
  );
  try {
    await new Promise((r) => setTimeout(r, 50));
    let open!: () => void;
    gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    tail.appended(); // the followers start a read, held at the gate
    await new Promise((r) => setTimeout(r, 20));
    log.push(event(1));
    tail.appended(); // committed after that read began
    open();
    gate = undefined;
    await eventually('both followers to see the event', () => seen.every((g) => g.length === 1));
    assert.equal(seen, [[1], [1]]);
  } finally {
    for (const s of subscriptions) s.unsubscribe();
    await tail.close();
  }
});

test.run();
