import { randomUUID } from 'node:crypto';
import type { Test } from 'uvu';
import type { EventStore } from '../../src/event-store/port.ts';

/*
 * What the parts of the event store contract (event-store-contract.ts) share: the suite they add their
 * tests to, a fresh stream for each test, and an event of the type the contract writes.
 */
export interface ContractBackend {
  store: EventStore;
  /** Differences the backend itself promises (not the adapter): stated, never hidden. */
  idempotentUnderAny?: 'guaranteed' | 'best-effort';
  dispose(): Promise<void>;
}

export type ContractContext = { backend: ContractBackend; store: EventStore };
export type ContractTest = Test<ContractContext>;

export const ev = (n: number, id?: string) => ({ id, type: 'ContractTested', data: { n } });

export const stream = () => `contract-${randomUUID()}`;
