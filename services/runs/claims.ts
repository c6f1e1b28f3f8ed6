import { handleCommand } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { columnRunStream, releaseColumn } from '../../src/domain/runs/run-state.ts';
import type { EventMetadata } from '../../src/event-store/port.ts';

/**
 * Gives a column back from a run (its end, a start given up, a stale claim), decided on the claim as it
 * is with the revision read: nothing when another run holds it or it is free already.
 */
export async function releaseRunColumn(
  deps: Pick<ServiceDeps, 'store' | 'clock'>,
  claim: { tableId: string; columnId: string; runId: string },
  metadata: EventMetadata = { actor: 'runs' },
): Promise<void> {
  await handleCommand({
    store: deps.store,
    stream: columnRunStream.name(claim.tableId, claim.columnId),
    decider: releaseColumn,
    command: claim,
    metadata,
    now: deps.clock(),
  });
}
