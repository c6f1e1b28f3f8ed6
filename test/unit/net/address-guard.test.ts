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

// Every IPv6 form that carries an IPv4 address is judged by that address too (issue 34, item 4):
// `::7f00:1` and `::a9fe:a9fe` were attempted, the latter even with private targets allowed.
const carriers = [
  ['::7f00:1', '127.0.0.1', 'IPv4-compatible'],
  ['::127.0.0.1', '127.0.0.1', 'IPv4-compatible, dotted'],
  ['::a00:1', '10.0.0.1', 'IPv4-compatible'],
  ['::ffff:0:7f00:1', '127.0.0.1', 'IPv4-translated (RFC 6145)'],
  ['64:ff9b::a9fe:a9fe', '169.254.169.254', 'NAT64'],
  ['64:ff9b::169.254.169.254', '169.254.169.254', 'NAT64, dotted'],
  ['64:ff9b:1::a9fe:a9fe', '169.254.169.254', 'local-use NAT64'],
  ['2002:a9fe:a9fe::1', '169.254.169.254', '6to4'],
  ['2001:0:a9fe:a9fe::1', '169.254.169.254', 'Teredo server'],
  ['2001:0:4136:e378:8000:63bf:5601:5601', '169.254.169.254', 'Teredo client, stored inverted'],
] as const;

for (const [address, inside, form] of carriers) {
  test(`refuses ${address} (${form}) by default, naming ${inside}`, () => {
    const verdict = checkAddress(address, DEFAULT_ADDRESS_POLICY);
    assert.ok(!verdict.ok, address);
    assert.ok(!verdict.ok && verdict.reason.includes(inside), !verdict.ok ? verdict.reason : '');
  });
}

test('an IPv6 form carrying a metadata address is refused even when private targets are allowed', () => {
  const open = { allowPrivateNetwork: true };
  for (const address of [
    '::a9fe:a9fe',
    '::169.254.169.254',
    '::a9fe:aa02',
    '::6464:64c8',
    ...carriers.slice(4).map(([a]) => a),
  ]) {
    const verdict = checkAddress(address, open);
    assert.ok(!verdict.ok && /metadata/.test(verdict.reason), address);
  }
  // The same forms carrying an ordinary private address are allowed in that mode.
  for (const address of ['::7f00:1', '64:ff9b::a00:1', '2002:a00:1::']) {
    assert.equal(checkAddress(address, open), { ok: true }, address);
  }
});

test('deny entries apply to the IPv4 address an IPv6 form carries', () => {
  const policy = { allowPrivateNetwork: true, deny: ['127.0.0.2', '10.9.0.0/16'] };
  for (const address of ['::7f00:2', '::127.0.0.2', '64:ff9b::7f00:2', '2002:a09:1::', '::ffff:0:a09:101']) {
    assert.is(checkAddress(address, policy).ok, false, address);
  }
  assert.is(checkAddress('::7f00:1', policy).ok, true);
});

test('the transition forms stay refused by default even around a public address; ::1 and :: are IPv6 own', () => {
  for (const address of ['::808:808', '64:ff9b::808:808', '2002:808:808::', '2001:0:808:808::f7f7:f7f7']) {
    assert.is(checkAddress(address, DEFAULT_ADDRESS_POLICY).ok, false, address);
  }
  assert.equal(checkAddress('::ffff:8.8.8.8', DEFAULT_ADDRESS_POLICY), { ok: true });
  const loopback = checkAddress('::1', DEFAULT_ADDRESS_POLICY);
  assert.ok(!loopback.ok && /::1 is a loopback address/.test(loopback.reason));
  assert.equal(checkAddress('::1', { allowPrivateNetwork: true }), { ok: true });
});

test('a URL names the address as WHATWG writes it, and that is what is judged', () => {
  for (const written of ['::127.0.0.1', '::7f00:1', '::ffff:127.0.0.1', '::a9fe:a9fe']) {
    const host = new URL(`http://[${written}]/`).hostname;
    assert.is(checkAddress(host, DEFAULT_ADDRESS_POLICY).ok, false, host);
  }
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
