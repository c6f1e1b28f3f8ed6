import * as assert from 'uvu/assert';
import { ATTEMPTS, deliveriesProjection, HEALTH } from '../../../projections/webhooks/deliveries.ts';
import type { WebhookAttempted } from '../../../src/domain/webhooks/events.ts';
import { attemptLogStream, deliveryStream } from '../../../src/domain/webhooks/subscription-state.ts';
import { projectionSuite, SpecLog } from '../../support/projection-spec.ts';

const test = projectionSuite('webhook history (given attempt batches, then rows)', deliveriesProjection);

const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const attempt = (messageId: string, n: number, outcome: WebhookAttempted['outcome'], second: number) => ({
  subscriptionId: 'wh_1',
  organizationId: 'o1',
  messageId,
  eventType: 'row.created',
  eventAt: at(0),
  test: false,
  attempt: n,
  at: at(second),
  statusCode: outcome === 'succeeded' ? 200 : 500,
  durationMs: 3,
  response: '',
  outcome,
  nextAttemptAt: outcome === 'retrying' ? at(second + 5) : null,
});
const batch = (...attempts: WebhookAttempted[]) => ({
  type: 'WebhookAttemptsRecorded' as const,
  data: { subscriptionId: 'wh_1', organizationId: 'o1', attempts },
});
const stream = attemptLogStream.name('o1', 'wh_1');
const messageRows = { columns: 'id, status, attempts', orderBy: 'id' };
const attemptRows = {
  table: ATTEMPTS,
  columns: 'message_id, attempt, outcome',
  orderBy: 'message_id, attempt',
};
const healthRows = { table: HEALTH, columns: 'subscription_id, consecutive_failures' };

test("a batch's attempts are each a row of their message, in two statements", async ({ spec }) => {
  const log = new SpecLog();
  const given = await spec.given([
    log.append(
      stream,
      batch(
        attempt('msg_a', 1, 'retrying', 1),
        attempt('msg_b', 1, 'succeeded', 1),
        attempt('msg_a', 2, 'succeeded', 2),
      ),
    ),
  ]);
  assert.equal(given.statements, [2]);
  await given.thenRows(
    [
      { id: 'msg_a', status: 'succeeded', attempts: 2 },
      { id: 'msg_b', status: 'succeeded', attempts: 1 },
    ],
    messageRows,
  );
  await given.thenRows(
    [
      { message_id: 'msg_a', attempt: 1, outcome: 'retrying' },
      { message_id: 'msg_a', attempt: 2, outcome: 'succeeded' },
      { message_id: 'msg_b', attempt: 1, outcome: 'succeeded' },
    ],
    attemptRows,
  );
});

test('attempts recorded one per message stream before the attempt log still make the history', async ({
  spec,
}) => {
  const log = new SpecLog();
  const legacy = log.append(deliveryStream.name('wh_1', 'msg_old'), {
    type: 'WebhookAttempted' as const,
    data: attempt('msg_old', 1, 'failed', 1),
  });
  const given = await spec.given([legacy, log.append(stream, batch(attempt('msg_new', 1, 'failed', 2)))]);
  await given.thenRows(
    [
      { id: 'msg_new', status: 'failed', attempts: 1 },
      { id: 'msg_old', status: 'failed', attempts: 1 },
    ],
    messageRows,
  );
  await given.thenRows([{ subscription_id: 'wh_1', consecutive_failures: 2 }], healthRows);
});

test('an attempt recorded again in another batch is one row and counts once for the health', async ({
  spec,
}) => {
  const log = new SpecLog();
  const failed = attempt('msg_a', 1, 'failed', 1);
  const given = await spec.given(
    [log.append(stream, batch(failed, failed))],
    [log.append(stream, batch(failed, attempt('msg_b', 1, 'failed', 2)))],
  );
  await given.thenRows(
    [
      { message_id: 'msg_a', attempt: 1, outcome: 'failed' },
      { message_id: 'msg_b', attempt: 1, outcome: 'failed' },
    ],
    attemptRows,
  );
  await given.thenRows([{ subscription_id: 'wh_1', consecutive_failures: 2 }], healthRows);
});

test.run();
