import { suite, type Test } from 'uvu';
import { appendContract } from './event-store-contract-appends.ts';
import { atomicAppendContract, noAtomicAppendContract } from './event-store-contract-atomic.ts';
import { readContract } from './event-store-contract-reads.ts';
import { subscriptionContract } from './event-store-contract-subscriptions.ts';
import type { ContractBackend, ContractContext } from './event-store-contract-suite.ts';

export type { ContractBackend } from './event-store-contract-suite.ts';

/**
 * The behaviour every EventStore adapter must show; run once per backend. With `skip` (the backend is not
 * available on this machine) every test is still listed, and counted as skipped rather than passed.
 * The contract comes in parts, added to one suite in this order: appends (with `atomic`, the atomic
 * append across streams; without, its absence), reads, subscriptions.
 */
export function eventStoreContract(
  name: string,
  open: () => Promise<ContractBackend>,
  options: { skip?: boolean; atomic?: boolean } = {},
): void {
  const contract = suite<ContractContext>(`event store contract: ${name}`);
  const test = options.skip ? listedAsSkipped(contract) : contract;

  test.before(async (ctx) => {
    ctx.backend = await open();
    ctx.store = ctx.backend.store;
  });
  test.after(async (ctx) => {
    await ctx.backend?.dispose();
  });

  appendContract(test);
  if (options.atomic) atomicAppendContract(test);
  else noAtomicAppendContract(test);
  readContract(test);
  subscriptionContract(test);

  test.run();
}

/** A suite that registers each test with `skip` and runs no hooks: nothing opens the backend. */
function listedAsSkipped<T>(real: Test<T>): Test<T> {
  const noHook = Object.assign(() => {}, { each: () => {} });
  return Object.assign((testName: string) => real.skip(testName), {
    only: (testName: string) => real.skip(testName),
    skip: real.skip,
    before: noHook,
    after: noHook,
    run: real.run,
  });
}
