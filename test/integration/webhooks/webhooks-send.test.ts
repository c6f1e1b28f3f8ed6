import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deliveryClient, postMessage } from '../../../processes/webhooks/send.ts';
import { Receiver } from '../../support/webhooks.ts';

const signal = () => AbortSignal.timeout(20_000);

test('the SSRF guard refuses a loopback receiver unless private targets are allowed', async () => {
  const receiver = await Receiver.start();
  try {
    const refused = await postMessage(
      deliveryClient({ ALLOW_PRIVATE_NETWORK_TARGETS: false }),
      receiver.url,
      {},
      '{}',
      signal(),
    ).then(
      () => 'sent',
      (error: Error) => error.message,
    );
    assert.match(refused, /^target_not_allowed/);
    assert.is(receiver.received.length, 0, 'nothing reached the receiver');
    const allowed = await postMessage(
      deliveryClient({ ALLOW_PRIVATE_NETWORK_TARGETS: true }),
      receiver.url,
      {},
      '{}',
      signal(),
    );
    assert.is(allowed.statusCode, 200);
    assert.is(receiver.received.length, 1);
  } finally {
    await receiver.close();
  }
});

test('a redirect is not followed, and at most 1 KB of a body is kept', async () => {
  const receiver = await Receiver.start();
  const elsewhere = await Receiver.start();
  try {
    receiver.answer = () => ({ status: 307, headers: { location: elsewhere.url } });
    const client = deliveryClient({ ALLOW_PRIVATE_NETWORK_TARGETS: true });
    const redirected = await postMessage(client, receiver.url, {}, '{}', signal());
    assert.is(redirected.statusCode, 307);
    assert.is(elsewhere.received.length, 0);
    receiver.answer = () => ({ status: 500, body: 'é'.repeat(5000) });
    const long = await postMessage(client, receiver.url, {}, '{}', signal());
    assert.ok(Buffer.byteLength(long.excerpt) <= 1024);
    assert.ok(long.excerpt.startsWith('éé'));
    assert.not.ok(long.excerpt.includes('\uFFFD'));
  } finally {
    await receiver.close();
    await elsewhere.close();
  }
});

test.run();
