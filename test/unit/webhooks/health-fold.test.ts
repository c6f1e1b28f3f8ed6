import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { foldHealth } from '../../../projections/webhooks/deliveries.ts';
import type { WebhookAttempted } from '../../../src/domain/webhooks/events.ts';

const attempt = (
  subscriptionId: string,
  outcome: WebhookAttempted['outcome'],
  at: string,
  test = false,
): WebhookAttempted => ({
  subscriptionId,
  organizationId: 'org',
  messageId: `msg_${at}`,
  eventType: 'row.created',
  eventAt: at,
  test,
  attempt: 1,
  at,
  statusCode: outcome === 'succeeded' ? 200 : 500,
  durationMs: 1,
  response: '',
  outcome,
  nextAttemptAt: null,
});

test('a batch of attempts folds per subscription as one at a time would', () => {
  const folded = foldHealth([
    attempt('a', 'failed', 't1'),
    attempt('b', 'retrying', 't2'),
    attempt('a', 'succeeded', 't3'),
    attempt('a', 'retrying', 't4'),
    attempt('a', 'failed', 't5'),
    attempt('b', 'failed', 't6'),
    attempt('b', 'succeeded', 't7', true),
  ]);
  assert.equal(folded, [
    // After its last success: one failed message, failing since the first attempt that did not succeed.
    { subscription_id: 'a', failures: 1, failing_since: 't4', last_success_at: 't3' },
    // No success: the failures add to the stored count, the stored failing time wins; a test send is no success.
    { subscription_id: 'b', failures: 1, failing_since: 't2', last_success_at: null },
  ]);
});

test('test sends alone change no health', () => {
  assert.equal(foldHealth([attempt('a', 'failed', 't1', true)]), []);
});

test.run();
