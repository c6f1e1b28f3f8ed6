import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isTrustedPeer } from '../../../src/http/trusted-peer.ts';

const test = suite('trusted peer (TRUST_PROXY against the socket address)');

test('false and 0 trust nobody; true and a hop count trust the direct peer', () => {
  assert.not.ok(isTrustedPeer(false, '10.0.0.1'));
  assert.not.ok(isTrustedPeer(0, '10.0.0.1'));
  assert.ok(isTrustedPeer(true, '203.0.113.9'));
  assert.ok(isTrustedPeer(2, '203.0.113.9'));
});

test('a list of addresses and CIDRs trusts those only, IPv4-mapped peers included', () => {
  const setting = '10.0.0.0/8, 192.168.1.1,fd00::/8';
  for (const address of ['10.1.2.3', '::ffff:10.1.2.3', '192.168.1.1', 'fd00::1'])
    assert.ok(isTrustedPeer(setting, address), address);
  for (const address of ['11.0.0.1', '192.168.1.2', '::1', 'fe80::1', undefined, 'not-an-ip'])
    assert.not.ok(isTrustedPeer(setting, address), String(address));
});

test("proxy-addr's range names and netmasks read as Fastify reads them", () => {
  assert.ok(isTrustedPeer('loopback', '127.0.0.1'));
  assert.ok(isTrustedPeer('loopback', '::1'));
  assert.ok(isTrustedPeer('uniquelocal', '172.16.5.4'));
  assert.not.ok(isTrustedPeer('uniquelocal', '172.32.0.1'));
  assert.ok(isTrustedPeer('10.0.0.0/255.0.0.0', '10.9.9.9'));
  assert.not.ok(isTrustedPeer('10.0.0.0/255.0.0.0', '11.0.0.1'));
});

test('an entry that is no address is refused, naming TRUST_PROXY', () => {
  assert.throws(() => isTrustedPeer('proxy.internal', '10.0.0.1'), /TRUST_PROXY/);
});

test.run();
