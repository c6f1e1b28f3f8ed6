import type { RunCreatedData, RunEvent } from '../../src/domain/runs/events.ts';
import { runStream } from '../../src/domain/runs/run-state.ts';
import type { EventStore } from '../../src/event-store/port.ts';

/** What the run's stream says of it, as its driver needs it (processes/runs/run-driver.ts). */
export interface RunLog {
  created?: RunCreatedData;
  /** Rows with a result in the log. */
  finished: ReadonlySet<string>;
  /** Ids of the RunRowsQueued events recorded (a step is queued once). */
  queued: ReadonlySet<string>;
  /** The rows of those events, an array a step in the log's order (a run selecting as it goes resumes from them). */
  queuedSteps: readonly (readonly string[])[];
  /** A RunRowsLeft is recorded: a run selecting as it goes selects nothing more. */
  rowsLeft: boolean;
  stopRequested: boolean;
  ended: boolean;
}

/** Reads the run's whole stream: once per driver (a resumed 10,000-row run reads its 10,000 results). */
export async function readRunLog(store: EventStore, runId: string): Promise<RunLog> {
  const log = {
    created: undefined as RunCreatedData | undefined,
    finished: new Set<string>(),
    queued: new Set<string>(),
    queuedSteps: [] as string[][],
    rowsLeft: false,
    stopRequested: false,
    ended: false,
  };
  for (const recorded of await store.readStream(runStream.name(runId))) {
    const event = recorded as unknown as RunEvent;
    if (event.type === 'RunCreated') log.created = event.data;
    else if (event.type === 'RunRowFinished') log.finished.add(event.data.rowId);
    else if (event.type === 'RunRowsQueued') {
      if (!log.queued.has(recorded.id)) log.queuedSteps.push(event.data.rowIds);
      log.queued.add(recorded.id);
    } else if (event.type === 'RunRowsLeft') log.rowsLeft = true;
    else if (event.type === 'RunStopRequested') log.stopRequested = true;
    else if (event.type === 'RunFinished') log.ended = true;
  }
  return log;
}
