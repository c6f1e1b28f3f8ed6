import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses an outbound request to a user-chosen URL may connect to. Users name the URLs of
 * http_request columns and webhooks, and the service calls them from inside its own network: without
 * this rule a URL could reach the database, the cloud metadata service or an admin port on loopback.
 */
export interface AddressPolicy {
  /** ALLOW_PRIVATE_NETWORK_TARGETS: loopback, private and link-local targets allowed (tests, on-premises). */
  allowPrivateNetwork: boolean;
  /** Addresses or CIDRs refused whatever else says (tests refuse 127.0.0.2 while serving on 127.0.0.1). */
  deny?: readonly string[];
}

export const DEFAULT_ADDRESS_POLICY: AddressPolicy = { allowPrivateNetwork: false };

/**
 * Cloud instance metadata endpoints hand out credentials: refused even when private targets are
 * allowed, since no column or webhook has a reason to call them. 169.254.169.254 (AWS, GCP, Azure,
 * OpenStack), 169.254.170.2 (ECS task credentials), 100.100.100.200 (Alibaba), fd00:ec2::254 (AWS IPv6).
 */
const METADATA = ['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254'].map((a) =>
  ipaddr.parse(a).toNormalizedString(),
);

export type AddressVerdict = { ok: true } | { ok: false; reason: string };

/** `a.b.c.d`, `::1`, `10.0.0.0/8`, `fc00::/7`: does it contain `address`? An unreadable entry matches nothing. */
function matches(address: ipaddr.IPv4 | ipaddr.IPv6, entry: string): boolean {
  try {
    if (!entry.includes('/'))
      return ipaddr.process(entry).toNormalizedString() === address.toNormalizedString();
    const [range, bits] = ipaddr.parseCIDR(entry);
    return range.kind() === address.kind() && address.match(range, bits);
  } catch {
    return false;
  }
}

/**
 * Reads an IP literal. A dotted tail (`::127.0.0.1`, `64:ff9b::1.2.3.4`) is rewritten as two hex
 * groups first: ipaddr.js reads `::a.b.c.d` as the IPv4-mapped `::ffff:a.b.c.d`, which is another
 * address than the IPv4-compatible `::7f00:1` the socket would connect to.
 */
function parseLiteral(literal: string): ipaddr.IPv4 | ipaddr.IPv6 {
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(literal);
  if (!dotted) return ipaddr.parse(literal);
  const [a, b, c, d] = dotted.slice(2).map(Number) as [number, number, number, number];
  return ipaddr.parse(`${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`);
}

/** The IPv4 address held in 32 bits of an IPv6 address, from its 16-bit part `at` on. */
function ipv4At(address: ipaddr.IPv6, at: number, invert = false): ipaddr.IPv4 {
  const high = address.parts[at]! ^ (invert ? 0xffff : 0);
  const low = address.parts[at + 1]! ^ (invert ? 0xffff : 0);
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

/**
 * The IPv4 addresses an IPv6 address carries, which is where a connection to it ends up:
 * IPv4-compatible `::a.b.c.d` (deprecated; `::` and `::1` are IPv6's own), IPv4-translated
 * `::ffff:0:a.b.c.d` (RFC 6145), NAT64 `64:ff9b::a.b.c.d` and the local-use `64:ff9b:1::/48` (RFC 6052,
 * RFC 8215; the /96 form, address in the last 32 bits), 6to4 `2002:AABB:CCDD::/48` and Teredo
 * `2001:0:SSSS:SSSS::CCCC:CCCC` (the server, and the client stored inverted). IPv4-mapped
 * `::ffff:a.b.c.d` is unwrapped before this (ipaddr.process).
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] {
  const p = address.parts;
  const zeros = (from: number, to: number) => p.slice(from, to).every((part) => part === 0);
  if (zeros(0, 6) && !(p[6] === 0 && p[7]! <= 1)) return [ipv4At(address, 6)];
  switch (address.range()) {
    case 'rfc6145':
    case 'rfc6052':
      return [ipv4At(address, 6)];
    case '6to4':
      return [ipv4At(address, 1)];
    case 'teredo':
      return [ipv4At(address, 2), ipv4At(address, 6, true)];
    default:
      return [];
  }
}

/**
 * Whether an outbound connection may go to `address` (an IP literal, as resolved or as written in the
 * URL). Only global unicast is allowed by default: ipaddr.js classifies every special-purpose range
 * (loopback, private, link-local, unique-local, CGNAT, unspecified, multicast, broadcast, reserved,
 * documentation, 6to4/Teredo/NAT64 embeddings) as something other than `unicast`. IPv4-mapped IPv6
 * (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries; every other IPv6 form that carries an
 * IPv4 address (`embeddedIPv4`) is judged as itself and as that address, each of which must pass: the
 * metadata and deny rules apply to the address inside whatever the policy, and by default the
 * IPv4-compatible form `::a.b.c.d` (deprecated, routed by no one on purpose) is refused like the other
 * transition forms.
 */
export function checkAddress(address: string, policy: AddressPolicy): AddressVerdict {
  const literal = (address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address).split(
    '%',
  )[0]!;
  if (!isIP(literal)) return { ok: false, reason: `${address} is not an IP address` };
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // ::ffff:7f00:1 is judged as 127.0.0.1.
    const read = parseLiteral(literal);
    parsed =
      read.kind() === 'ipv6' && (read as ipaddr.IPv6).isIPv4MappedAddress()
        ? (read as ipaddr.IPv6).toIPv4Address()
        : read;
  } catch {
    return { ok: false, reason: `${address} is not an IP address` };
  }
  const shown = parsed.toString();
  const inside = parsed.kind() === 'ipv6' ? embeddedIPv4(parsed as ipaddr.IPv6) : [];
  for (const candidate of [parsed, ...inside]) {
    const named = candidate === parsed ? shown : `${shown} carries ${candidate.toString()}, which`;
    if (METADATA.includes(candidate.toNormalizedString())) {
      return { ok: false, reason: `${named} is a cloud metadata address` };
    }
    if (policy.deny?.some((entry) => matches(candidate, entry))) {
      return { ok: false, reason: `${named} is denied by the outbound policy` };
    }
  }
  if (policy.allowPrivateNetwork) return { ok: true };
  for (const candidate of [...inside, parsed]) {
    const named = candidate === parsed ? shown : `${shown} carries ${candidate.toString()}, which`;
    const compatible = candidate === parsed && inside.length > 0 && candidate.range() === 'unicast';
    const range = compatible ? 'deprecated IPv4-compatible' : candidate.range();
    if (range !== 'unicast') {
      return {
        ok: false,
        // The setting that lifts the refusal is named, so that whoever runs the service on loopback
        // (a first try, a test) knows what to change.
        reason:
          `${named} is a ${range} address (private network targets are not allowed unless the ` +
          'service runs with ALLOW_PRIVATE_NETWORK_TARGETS=true)',
      };
    }
  }
  return { ok: true };
}

/** Verdicts by policy (a policy is not changed once made) and address: at most this many each. */
const verdicts = new WeakMap<AddressPolicy, Map<string, AddressVerdict>>();
const VERDICTS_KEPT = 1000;

/**
 * `checkAddress`, remembered: a verdict depends on the address and the policy alone, and a webhook
 * receiver or an API named by its IP is checked before every request (parsing and classifying it was
 * a measurable part of a delivery's CPU).
 */
export function checkAddressOnce(address: string, policy: AddressPolicy): AddressVerdict {
  let known = verdicts.get(policy);
  if (!known) {
    known = new Map();
    verdicts.set(policy, known);
  }
  let verdict = known.get(address);
  if (!verdict) {
    verdict = checkAddress(address, policy);
    if (known.size >= VERDICTS_KEPT) known.clear();
    known.set(address, verdict);
  }
  return verdict;
}

/** Thrown from the connection's DNS lookup (and before connecting to a literal IP): never retried. */
export class TargetNotAllowedError extends Error {
  readonly code = 'ERR_TARGET_NOT_ALLOWED';
}

/**
 * A `lookup` for `net.connect` (undici's `connect.lookup`, `http.request`'s `lookup`): resolves as
 * usual, then refuses the connection when any resolved address is not allowed. Checking here, on the
 * addresses the socket is about to use, closes the gap a check-then-connect leaves (a name that
 * resolves to a public address when checked and to 127.0.0.1 when connected: DNS rebinding). Literal
 * IP hosts skip lookups: callers check them with `checkAddress` before connecting.
 */
export function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const refused = addresses
        .map((a) => checkAddressOnce(a.address, policy))
        .find((verdict): verdict is { ok: false; reason: string } => !verdict.ok);
      if (refused || addresses.length === 0) {
        const why = refused?.reason ?? 'no address';
        return callback(new TargetNotAllowedError(`${hostname} resolves to a refused target: ${why}`), '', 0);
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
