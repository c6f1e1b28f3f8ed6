import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  checkAddress,
  checkAddressOnce,
  DEFAULT_ADDRESS_POLICY,
  guardedLookup,
} from '../../../src/net/address-guard.ts';

const test = suite('SSRF address guard');

const refused = [
  ['127.0.0.1', 'loopback'],
  ['127.1.2.3', 'loopback'],
  ['::1', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.1.1', 'linkLocal'],
  ['fe80::1', 'linkLocal'],
  ['fc00::1', 'uniqueLocal'],
  ['fd12:3456::1', 'uniqueLocal'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['0.0.0.0', 'unspecified'],
  ['::', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['ff02::1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['[::1]', 'loopback'],
  ['64:ff9b::7f00:1', 'rfc6052'],
  ['2002:7f00:1::', '6to4'],
] as const;

for (const [address, kind] of refused) {
  test(`refuses ${address} (${kind}) by default`, () => {
    const verdict = checkAddress(address, DEFAULT_ADDRESS_POLICY);
    assert.is(verdict.ok, false);
  });
}

test('allows global unicast addresses', () => {
  for (const address of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    assert.equal(checkAddress(address, DEFAULT_ADDRESS_POLICY), { ok: true }, address);
  }
});

test('names the kind of a refused address', () => {
  const verdict = checkAddress('10.0.0.7', DEFAULT_ADDRESS_POLICY);
  assert.ok(!verdict.ok && /10\.0\.0\.7 is a private address/.test(verdict.reason));
});

test('metadata addresses are refused even when private targets are allowed', () => {
  const open = { allowPrivateNetwork: true };
  for (const address of ['169.254.169.254', 'fd00:ec2::254', '::ffff:a9fe:a9fe', '169.254.170.2']) {
    const verdict = checkAddress(address, open);
    assert.ok(!verdict.ok && /metadata/.test(verdict.reason), address);
  }
  assert.equal(checkAddress('127.0.0.1', open), { ok: true });
  assert.equal(checkAddress('10.0.0.1', open), { ok: true });
});

test('deny entries (addresses and CIDRs) win over allowPrivateNetwork', () => {
  const policy = { allowPrivateNetwork: true, deny: ['127.0.0.2', '10.9.0.0/16', 'fc00::/7', 'junk'] };
  assert.is(checkAddress('127.0.0.2', policy).ok, false);
  assert.is(checkAddress('::ffff:127.0.0.2', policy).ok, false);
  assert.is(checkAddress('10.9.200.1', policy).ok, false);
  assert.is(checkAddress('fd00::5', policy).ok, false);
  assert.is(checkAddress('127.0.0.1', policy).ok, true);
  assert.is(checkAddress('10.8.0.1', policy).ok, true);
});

test('a host name is not an address', () => {
  assert.is(checkAddress('example.com', { allowPrivateNetwork: true }).ok, false);
});

const lookup = (hostname: string, all: boolean, policy = DEFAULT_ADDRESS_POLICY) =>
  new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
    guardedLookup(policy)(hostname, { all }, (error, address) => resolve({ error, address })),
  );

test('the guarded lookup refuses a name that resolves to loopback', async () => {
  const { error } = await lookup('localhost', false);
  assert.is(error?.code, 'ERR_TARGET_NOT_ALLOWED');
  assert.match(String(error?.message), /localhost resolves to a refused target/);
});

test('the guarded lookup answers as asked (one address, or all) when allowed', async () => {
  const open = { allowPrivateNetwork: true };
  const one = await lookup('127.0.0.1', false, open);
  assert.is(one.error, null);
  assert.is(one.address, '127.0.0.1');
  const all = await lookup('127.0.0.1', true, open);
  assert.equal(all.address, [{ address: '127.0.0.1', family: 4 }]);
});

test('a remembered verdict is the verdict, asked again and under each policy of its own', () => {
  const open = { allowPrivateNetwork: true };
  const denying = { allowPrivateNetwork: true, deny: ['127.0.0.2'] };
  for (const address of [...refused.map(([a]) => a!), '8.8.8.8', '2606:4700::1111', 'localhost']) {
    for (const policy of [DEFAULT_ADDRESS_POLICY, open, denying]) {
      const expected = checkAddress(address, policy);
      assert.equal(checkAddressOnce(address, policy), expected, `${address} first`);
      assert.equal(checkAddressOnce(address, policy), expected, `${address} again`);
    }
  }
  // The same address, refused by one policy and allowed by another, whichever was asked first.
  assert.ok(checkAddressOnce('127.0.0.2', open).ok);
  assert.not.ok(checkAddressOnce('127.0.0.2', denying).ok);
  assert.not.ok(checkAddressOnce('127.0.0.2', DEFAULT_ADDRESS_POLICY).ok);
});

test.run();
