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
 * Whether an outbound connection may go to `address` (an IP literal, as resolved or as written in the
 * URL). Only global unicast is allowed by default: ipaddr.js classifies every special-purpose range
 * (loopback, private, link-local, unique-local, CGNAT, unspecified, multicast, broadcast, reserved,
 * documentation, 6to4/Teredo/NAT64 embeddings) as something other than `unicast`. IPv4-mapped IPv6
 * (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries.
 */
export function checkAddress(address: string, policy: AddressPolicy): AddressVerdict {
  const literal = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!isIP(literal.split('%')[0]!)) return { ok: false, reason: `${address} is not an IP address` };
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() unwraps IPv4-mapped IPv6, so ::ffff:7f00:1 is judged as 127.0.0.1.
    parsed = ipaddr.process(literal.split('%')[0]!);
  } catch {
    return { ok: false, reason: `${address} is not an IP address` };
  }
  const shown = parsed.toString();
  if (METADATA.includes(parsed.toNormalizedString())) {
    return { ok: false, reason: `${shown} is a cloud metadata address` };
  }
  if (policy.deny?.some((entry) => matches(parsed, entry))) {
    return { ok: false, reason: `${shown} is denied by the outbound policy` };
  }
  if (policy.allowPrivateNetwork) return { ok: true };
  const range = parsed.range();
  return range === 'unicast'
    ? { ok: true }
    : { ok: false, reason: `${shown} is a ${range} address (private network targets are not allowed)` };
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
