import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { busyRetryMs, ENDING_RETRY_MS } from '../../../processes/autorun/worker.ts';

/*
 * An auto-run item that found its column held by a run looks again soon once that run has no row
 * left (its end, which makes the item due, could come before the item's retry is stored), and a
 * second later while the run still has rows to run or is not known yet.
 */
const test = suite('auto-run: when to look again at a held column');

test('soon once the holding run has nothing left to run or has ended; later while it runs', () => {
  assert.is(busyRetryMs({ left: 0, finished: false }), ENDING_RETRY_MS);
  assert.is(busyRetryMs({ left: 3, finished: true }), ENDING_RETRY_MS);
  const busy = busyRetryMs({ left: 3, finished: false });
  assert.ok(busy > ENDING_RETRY_MS, `${busy} ms while rows are left`);
  assert.is(busyRetryMs(undefined), busy, 'a run the read model does not show yet');
});

test.run();
