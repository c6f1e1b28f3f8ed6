import { loadState } from '../../src/command.ts';
import { recordAll, stoppedAppends } from '../../src/domain/runs/record.ts';
import { columnRunStream, eventIdOf, RUN_ROW, runStream } from '../../src/domain/runs/run-state.ts';
import type { EventMetadata, Position } from '../../src/event-store/port.ts';
import type { AppDeps } from '../../src/http/app.ts';
import { cancelPending } from '../../src/work/queue.ts';

/**
 * Stops a run: the stop is recorded first (a row that starts after it sees it and is skipped), then the
 * rows still waiting are taken off the queue and recorded as skipped. Rows already running finish; the
 * run ends `stopped` once they have (the runs read model sees the last row and enqueues the end).
 * Stopping a run that has ended, or is stopping, changes nothing.
 */
export async function stopRun(
  deps: AppDeps,
  runId: string,
  metadata: EventMetadata,
): Promise<Position | undefined> {
  const { state } = await loadState(deps.store, runStream.name(runId), runStream);
  const run = state.created;
  if (!run || state.finished || state.stopRequestedAt) return undefined;
  const at = deps.clock().toISOString();
  const stopped = await deps.store.append(runStream.name(runId), [
    { id: eventIdOf('stop', runId), type: 'RunStopRequested', data: { runId, at }, metadata },
  ]);
  const cancelled = await cancelPending(deps.pool, { kind: RUN_ROW, groupKey: runId });
  const { tableId, columnId } = run;
  await recordAll(
    deps.store,
    cancelled.flatMap((id) =>
      stoppedAppends({ runId, tableId, columnId, rowId: id.slice(`${RUN_ROW}:${runId}:`.length), at }),
    ),
  );
  return stopped.position;
}

/** A start takes well under this from its claim to its run's start event. */
const STALE_CLAIM_MS = 120_000;

/**
 * The run holding a column, if any. A claim whose run never started (its process died between the
 * appends) is released once it is old enough that no start can still be on its way, so that the
 * column can run again.
 */
export async function activeRunOf(
  deps: AppDeps,
  tableId: string,
  columnId: string,
): Promise<string | undefined> {
  const lock = columnRunStream.name(tableId, columnId);
  const last = (await deps.store.readLastEvents([lock])).get(lock);
  if (last?.type !== 'ColumnRunClaimed') return undefined;
  const { runId } = last.data as { runId: string };
  const { state: run } = await loadState(deps.store, runStream.name(runId), runStream);
  if (run.created || deps.clock().getTime() - last.recordedAt.getTime() < STALE_CLAIM_MS) return runId;
  await deps.store.append(lock, [
    { id: eventIdOf('release', runId), type: 'ColumnRunReleased', data: { tableId, columnId, runId } },
  ]);
  return undefined;
}
