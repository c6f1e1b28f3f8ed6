import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Position, RecordedEvent } from '../../src/event-store/port.ts';
import { comparePositions, START } from '../../src/event-store/port.ts';
import { LiveTail } from '../../src/event-store/postgres-live-tail.ts';
import { eventually } from '../support/eventually.ts';
import { freshDatabase, type TestDatabase } from '../support/postgres.ts';

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

test.run();
