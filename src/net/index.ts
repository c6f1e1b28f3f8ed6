import type { Config } from '../config.ts';
import type { AddressPolicy } from './address-guard.ts';
import { OutboundClient } from './outbound.ts';

export { type AddressPolicy, checkAddress, DEFAULT_ADDRESS_POLICY, guardedLookup } from './address-guard.ts';
export { HostRateLimit } from './host-rate-limit.ts';
export * from './outbound.ts';

/** The outbound policy the configuration asks for. */
export const addressPolicyFrom = (config: Pick<Config, 'ALLOW_PRIVATE_NETWORK_TARGETS'>): AddressPolicy => ({
  allowPrivateNetwork: config.ALLOW_PRIVATE_NETWORK_TARGETS,
});

/** One client per process: its per-host rate limit and connection pool are shared by every caller. */
export const outboundClientFrom = (
  config: Pick<Config, 'ALLOW_PRIVATE_NETWORK_TARGETS' | 'OUTBOUND_RATE_PER_HOST'>,
): OutboundClient =>
  new OutboundClient({
    policy: addressPolicyFrom(config),
    rateLimit: { perSecond: config.OUTBOUND_RATE_PER_HOST },
  });
