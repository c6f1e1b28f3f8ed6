import { BlockList, isIP } from 'node:net';

type TrustSetting = boolean | number | string;

/** The names proxy-addr (and so Fastify's trustProxy) gives to address ranges. */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

const family = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** `255.255.0.0` as a prefix length (proxy-addr takes either form). */
const prefixLength = (mask: string) =>
  mask.includes('.')
    ? mask.split('.').reduce((bits, octet) => bits + Number(octet).toString(2).replaceAll('0', '').length, 0)
    : Number(mask);

function compile(setting: TrustSetting): (address: string | undefined) => boolean {
  if (typeof setting === 'boolean') return () => setting;
  // A hop count trusts the nearest `setting` hops: the direct peer is hop 0.
  if (typeof setting === 'number') return () => setting > 0;
  const trusted = new BlockList();
  for (const entry of setting.split(',').map((e) => e.trim())) {
    for (const range of NAMED_RANGES[entry] ?? [entry]) {
      const [address = '', mask] = range.split('/');
      if (isIP(address) === 0)
        throw new Error(`TRUST_PROXY: "${entry}" is not an address, a CIDR or a range name`);
      if (mask === undefined) trusted.addAddress(address, family(address));
      else trusted.addSubnet(address, prefixLength(mask), family(address));
    }
  }
  return (address) => address !== undefined && isIP(address) !== 0 && trusted.check(address, family(address));
}

const compiled = new Map<TrustSetting, (address: string | undefined) => boolean>();

/**
 * Whether the direct peer of a connection (its socket's remote address) is a proxy TRUST_PROXY trusts,
 * read as Fastify reads it. It decides before Fastify has a `request.ip`, e.g. whose X-Request-Id to
 * believe.
 */
export function isTrustedPeer(setting: TrustSetting, address: string | undefined): boolean {
  let trusts = compiled.get(setting);
  if (!trusts) {
    trusts = compile(setting);
    compiled.set(setting, trusts);
  }
  return trusts(address);
}
