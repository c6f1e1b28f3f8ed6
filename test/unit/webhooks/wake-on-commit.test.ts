import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { service } from '../../../app/modules.ts';
import { DELIVERY_KIND } from '../../../src/domain/webhooks/messages.ts';
import { wakeOnCommit } from '../../../src/work/batch.ts';

/** The kinds a commit woke (those of them with items just enqueued): `all` for every kind. */
function woken(projections: Parameters<typeof wakeOnCommit>[0], projection: string, applied = 1): string[] {
  const kinds: string[] = [];
  const wake = wakeOnCommit(projections, () => ({
    nudgeEnqueued: (wakes?: readonly string[]) => void kinds.push(...(wakes ?? ['all'])),
  }));
  wake(projection, applied);
  return kinds;
}

const projections = [
  { name: 'history' },
  { name: 'read-model', enqueues: [] },
  { name: 'reactor', enqueues: ['a', 'b'] },
];

test('a projection that says what it enqueues wakes those kinds only; a read model wakes none', () => {
  assert.equal(woken(projections, 'reactor'), ['a', 'b']);
  assert.equal(woken(projections, 'read-model'), []);
});

test('a projection that does not say, or one not known, wakes every worker', () => {
  assert.equal(woken(projections, 'history'), ['all']);
  assert.equal(woken(projections, 'elsewhere'), ['all']);
});

test('a commit that applied no event (only its checkpoint moved) wakes nobody', () => {
  assert.equal(woken(projections, 'reactor', 0), []);
  assert.equal(woken(projections, 'history', 0), []);
});

test('before the workers exist, a commit wakes nobody and does not fail', () => {
  wakeOnCommit(projections, () => undefined)('reactor');
});

test("the webhook history's commits wake no worker; the reactor's wake the deliveries", () => {
  assert.equal(woken(service.projections, 'webhook-deliveries'), []);
  assert.ok(woken(service.projections, 'webhook-reactor').includes(DELIVERY_KIND));
});

test.run();
