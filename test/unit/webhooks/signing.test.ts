import { Webhook } from 'standardwebhooks';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_RETRY_SCHEDULE, loadConfig } from '../../../src/config.ts';
import { JITTER, nextAttemptAt, retryAfterSeconds } from '../../../src/domain/webhooks/retry.ts';
import {
  messageIdOf,
  newSigningSecret,
  sign,
  uuidOf,
  webhookHeaders,
} from '../../../src/domain/webhooks/signing.ts';

test("the specification's published test vector", () => {
  const signature = sign(
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    'msg_p5jXN8AQM9LWM0D4loKWxJek',
    1614265330,
    '{"test": 2432232314}',
  );
  assert.is(signature, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
});

test('a new secret is whsec_ and the base64 of 32 bytes, different each time', () => {
  const secret = newSigningSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  assert.is(Buffer.from(secret.slice(6), 'base64').length, 32);
  assert.is.not(newSigningSecret(), secret);
});

test('the reference library verifies our headers, with either secret during a rotation', () => {
  const [current, previous] = [newSigningSecret(), newSigningSecret()];
  const body = JSON.stringify({
    type: 'row.created',
    timestamp: new Date().toISOString(),
    data: { rowId: 'r' },
  });
  const headers = webhookHeaders([current, previous], 'msg_1', Math.floor(Date.now() / 1000), body);
  assert.is(headers['webhook-signature']!.split(' ').length, 2);
  assert.equal(new Webhook(current).verify(body, headers), JSON.parse(body));
  assert.equal(new Webhook(previous).verify(body, headers), JSON.parse(body));
  assert.throws(() => new Webhook(newSigningSecret()).verify(body, headers));
  assert.throws(() => new Webhook(current).verify(`${body} `, headers));
});

test('message and record ids are deterministic', () => {
  assert.is(messageIdOf('wh_a', 'e1'), messageIdOf('wh_a', 'e1'));
  assert.is.not(messageIdOf('wh_a', 'e1'), messageIdOf('wh_b', 'e1'));
  assert.match(uuidOf('x'), /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.is(uuidOf('x'), uuidOf('x'));
});

test('the retry schedule: the specification, with jitter, until spent', () => {
  const now = new Date('2026-01-01T00:00:00Z');
  const after = (attempt: number, random: number, retryAfter?: number) =>
    (nextAttemptAt(DEFAULT_RETRY_SCHEDULE, attempt, now, retryAfter, () => random)?.getTime() ?? NaN) -
    now.getTime();
  assert.is(after(1, 0), 5_000);
  assert.is(after(2, 0), 300_000);
  assert.is(after(7, 0), 36_000_000);
  assert.is(after(1, 1), 5_000 * (1 + JITTER));
  assert.is(nextAttemptAt(DEFAULT_RETRY_SCHEDULE, 8, now), undefined, 'eight attempts, then given up');
  assert.is(after(1, 0, 120), 120_000, 'a longer Retry-After is honoured');
  assert.is(after(2, 0, 1), 300_000, 'a shorter one does not shorten the schedule');
  assert.is(retryAfterSeconds('30', now), 30);
  assert.is(retryAfterSeconds(new Date(now.getTime() + 60_000).toUTCString(), now), 60);
  assert.is(retryAfterSeconds('soon', now), undefined);
});

test('WEBHOOK_RETRY_SCHEDULE replaces the schedule; a bad one names the variable', () => {
  assert.equal(loadConfig({}).WEBHOOK_RETRY_SCHEDULE, [...DEFAULT_RETRY_SCHEDULE]);
  assert.equal(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0, 1,2' }).WEBHOOK_RETRY_SCHEDULE, [0, 1, 2]);
  assert.throws(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0,soon' }), /WEBHOOK_RETRY_SCHEDULE/);
});

test.run();
