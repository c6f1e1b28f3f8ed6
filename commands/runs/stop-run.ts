import { flagStop } from '../../processes/runs/run-outbox.ts';
import { releaseRunColumn } from '../../services/runs/claims.ts';
import { loadState } from '../../src/command.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import { organizationStream } from '../../src/domain/accounts/streams.ts';
import { columnRunStream, eventIdOf, runStream } from '../../src/domain/runs/run-state.ts';
import { decideStop } from '../../src/domain/runs/workflow.ts';
import { tableStream } from '../../src/domain/tables/table-state.ts';
import type { EventMetadata, Position } from '../../src/event-store/port.ts';

/**
 * Stops a run: the stop is recorded on the run's stream, then flagged where the run's driver looks
 * before it starts rows (run_stops: processes/runs/run-driver.ts), then answered. Once the flag is in,
 * no row starts (and the run's end, which follows the rows the driver then skips, finds the stop in
 * the log); the driver skips the rows not started and records those in their calls as they finish, and
 * the run ends `stopped` once they have (the runs read model sees the last row and enqueues the end).
 * Stopping a run that has ended, or is stopping, changes nothing.
 */
export async function stopRun(
  deps: ServiceDeps,
  runId: string,
  metadata: EventMetadata,
): Promise<Position | undefined> {
  const { state } = await loadState(deps.store, runStream.name(runId), runStream);
  if (!state.created || state.finished) return undefined;
  const stop = decideStop(state, deps.clock());
  // Flagged again on a repeat: a stop that died between its event and its flag is completed.
  if (stop.length === 0) return void (await flagStop(deps.pool, runId));
  const stopped = await deps.store.append(
    runStream.name(runId),
    stop.map((e) => ({ ...e, metadata })),
  );
  await flagStop(deps.pool, runId);
  return stopped.position;
}

/** How long a delete waits for a run claimed on its column to be created, so as to stop it. */
const CLAIM_WAIT_MS = 10_000;
const CLAIM_POLL_MS = 50;

/**
 * Stops the runs still under way on these columns: their column (or table) was deleted, so no cell is
 * left to fill and no credit should go on calls for it. After the delete, so that a refused delete stops
 * nothing. A run claimed but not created yet (a start under way, which checked the column before the
 * delete) is waited for, then stopped. (A process dying between the delete and this leaves the run
 * going; it ends as any run does.)
 */
export async function stopColumnRuns(
  deps: ServiceDeps,
  tableId: string,
  columnIds: Iterable<string>,
  metadata: EventMetadata,
): Promise<void> {
  for (const columnId of columnIds) {
    for (let waited = 0; ; waited += CLAIM_POLL_MS) {
      const runId = await activeRunOf(deps, tableId, columnId);
      if (!runId) break;
      const { state } = await loadState(deps.store, runStream.name(runId), runStream);
      if (state.created || waited >= CLAIM_WAIT_MS) {
        await stopRun(deps, runId, metadata);
        break;
      }
      await new Promise((r) => setTimeout(r, CLAIM_POLL_MS));
    }
  }
}

/** A start takes well under this from its claim to its run's start event. */
const STALE_CLAIM_MS = 120_000;

/**
 * The run holding a column, if any. A claim whose run never started (its process died between the
 * appends) is released once it is old enough that no start can still be on its way, so that the
 * column can run again.
 */
export async function activeRunOf(
  deps: ServiceDeps,
  tableId: string,
  columnId: string,
): Promise<string | undefined> {
  const lock = columnRunStream.name(tableId, columnId);
  const last = (await deps.store.readLastEvents([lock])).get(lock);
  if (last?.type !== 'ColumnRunClaimed') return undefined;
  const { runId } = last.data as { runId: string };
  const { state: run } = await loadState(deps.store, runStream.name(runId), runStream);
  if (run.created || deps.clock().getTime() - last.recordedAt.getTime() < STALE_CLAIM_MS) return runId;
  await refundUncreated(deps, tableId, runId, last.id);
  await releaseRunColumn(deps, { tableId, columnId, runId });
  return undefined;
}

/**
 * The reservation of a start that died before creating its run, given back: no run names it, so no
 * run's end would. Decided from the streams: the table says whose it is, the organization's state which
 * of its reservations is still open. The refund's id comes from the stale claim (`claimId`): two
 * processes releasing it at once refund once, and a run of the same id started after (auto-run tries
 * its start again under that id) still settles with the ids its end uses.
 */
async function refundUncreated(
  deps: Pick<ServiceDeps, 'store'>,
  tableId: string,
  runId: string,
  claimId: string,
): Promise<void> {
  const { state: table } = await loadState(deps.store, tableStream.name(tableId), tableStream);
  if (!table.organizationId) return;
  const organization = organizationStream.name(table.organizationId);
  const { state } = await loadState(deps.store, organization, organizationStream);
  const amount = state.reservations.get(runId);
  if (amount === undefined) return;
  const data = { organizationId: table.organizationId, runId, amount };
  await deps.store.append(organization, [
    { id: eventIdOf('refund-uncreated', runId, claimId), type: 'CreditsRefunded', data },
  ]);
}
