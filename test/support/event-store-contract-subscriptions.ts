import { randomUUID } from 'node:crypto';
import { firstValueFrom, take, toArray } from 'rxjs';
import * as assert from 'uvu/assert';
import type { RecordedEvent } from '../../src/event-store/port.ts';
import { comparePositions } from '../../src/event-store/port.ts';
import { type ContractTest, ev, stream } from './event-store-contract-suite.ts';

/**
 * Subscriptions to the global log: catching up then following live, and each event exactly once under
 * concurrent writers.
 */
export function subscriptionContract(test: ContractTest): void {
  test('subscribeAll catches up, then follows live', async ({ store }) => {
    const start = await store.head();
    const s = stream();
    await store.append(s, [ev(1), ev(2)]);
    const received = firstValueFrom(store.subscribeAll(start).pipe(take(4), toArray()));
    await new Promise((r) => setTimeout(r, 50));
    await store.append(s, [ev(3)]);
    await store.append(s, [ev(4)]);
    const events = await received;
    assert.equal(
      events.map((e) => (e.data as { n: number }).n),
      [1, 2, 3, 4],
    );
  });

  test('race: 8 writers, 2,000 events over 50 streams; a live subscriber sees each exactly once', async ({
    store,
  }) => {
    const start = await store.head();
    const prefix = `race-${randomUUID()}`;
    const streams = Array.from({ length: 50 }, (_, i) => `${prefix}-${i}`);
    const total = 2000;
    const seen: RecordedEvent[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const sub = store.subscribeAll(start).subscribe({
        next: (e) => {
          if (!e.stream.startsWith(prefix)) return;
          seen.push(e);
          if (seen.length === total) {
            // Linger briefly so that a duplicate delivery would still be counted.
            setTimeout(() => {
              sub.unsubscribe();
              resolve();
            }, 300);
          }
        },
        error: reject,
      });
    });
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < total) {
          const n = next++;
          await store.append(streams[n % 50]!, [ev(n)], { expectedRevision: 'any' });
        }
      }),
    );
    await Promise.race([
      done,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`only ${seen.length} of ${total} seen`)), 30_000),
      ),
    ]);
    assert.is(seen.length, total);
    assert.is(new Set(seen.map((e) => e.id)).size, total, 'an event was delivered twice');
    const byStream = new Map<string, bigint[]>();
    for (const e of seen) byStream.set(e.stream, [...(byStream.get(e.stream) ?? []), e.revision]);
    for (const [s, revisions] of byStream) {
      assert.equal(
        revisions,
        revisions.map((_, i) => BigInt(i)),
        `stream ${s} out of revision order`,
      );
    }
    for (let i = 1; i < seen.length; i++) {
      assert.ok(comparePositions(seen[i - 1]!.position, seen[i]!.position) < 0, 'positions not increasing');
    }
  });
}
