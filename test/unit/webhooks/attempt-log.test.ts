import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { attemptAppends } from '../../../processes/webhooks/attempt-log.ts';
import { sampleAttempt } from '../../support/webhook-attempts.ts';

const attempt = (subscriptionId: string, messageId: string) => sampleAttempt({ subscriptionId, messageId });

test('a batch is one event per subscription, in its attempt log, holding its attempts in order', () => {
  const records = [attempt('wh_1', 'a'), attempt('wh_2', 'b'), attempt('wh_1', 'c')];
  const { appends, appendOf } = attemptAppends(records);
  assert.equal(
    appends.map((a) => a.stream),
    ['webhookatt-o1.wh_1', 'webhookatt-o1.wh_2'],
  );
  assert.equal(
    appends.map((a) => a.events.map((e) => e.data.attempts.map((r) => r.messageId))),
    [[['a', 'c']], [['b']]],
  );
  assert.equal(records.map(appendOf), [0, 1, 0]);
});

test("an event's id is made from its attempts': the same batch again is the same event", () => {
  const idOf = (records: ReturnType<typeof attempt>[]) => attemptAppends(records).appends[0]!.events[0]!.id;
  const batch = [attempt('wh_1', 'a'), attempt('wh_1', 'b')];
  assert.is(idOf(batch), idOf([attempt('wh_1', 'a'), attempt('wh_1', 'b')]));
  assert.is.not(idOf(batch), idOf([attempt('wh_1', 'a')]));
});

test.run();
