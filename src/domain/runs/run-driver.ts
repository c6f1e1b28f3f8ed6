import { ROWS } from '../../../projections/rows/rows.ts';
import { backoffMs } from '../../db/backoff.ts';
import { WrongExpectedRevisionError } from '../../event-store/errors.ts';
import type { EventStore, NewEvent, StreamAppend } from '../../event-store/port.ts';
import type { AppDeps } from '../../http/app.ts';
import type { RunCreatedData, RunEvent } from './events.ts';
import {
  finishedCell,
  finishedEvent,
  queuedEvent,
  type RowStep,
  RUN_STOPPED,
  skippedResult,
  startedEvent,
} from './record.ts';
import type { RowResult } from './row-call.ts';
import { runStream } from './run-state.ts';

/** Rows queued in the first step (soon running) and in each step after (ahead of the rows running). */
const FIRST_STEP = 64;
const STEP = 1000;
/** How often a driver with every slot in a call looks for a stop recorded meanwhile. */
const STOP_POLL_MS = 250;
/** Tries of a cell's result whose append failed on its own (the run's result landed), before it is logged. */
const CELL_TRIES = 5;

const ROW_DELETED = { code: 'row_not_found', message: 'the row was deleted' };

/** What the run's stream says of it, as its driver needs it. */
export interface RunLog {
  created?: RunCreatedData;
  /** The revision of the stream's last event: a driver appends exactly after it. */
  revision: bigint;
  finished: ReadonlySet<string>;
  /** Ids of the RunRowsQueued events recorded (a step queued once). */
  queued: ReadonlySet<string>;
  stopRequested: boolean;
  ended: boolean;
}

export async function readRunLog(store: EventStore, runId: string): Promise<RunLog> {
  const events = await store.readStream(runStream.name(runId));
  const log = {
    created: undefined as RunCreatedData | undefined,
    revision: events.at(-1)?.revision ?? -1n,
    finished: new Set<string>(),
    queued: new Set<string>(),
    stopRequested: false,
    ended: false,
  };
  for (const recorded of events) {
    const event = recorded as unknown as RunEvent;
    if (event.type === 'RunCreated') log.created = event.data;
    else if (event.type === 'RunRowFinished') log.finished.add(event.data.rowId);
    else if (event.type === 'RunRowsQueued') log.queued.add(recorded.id);
    else if (event.type === 'RunStopRequested') log.stopRequested = true;
    else if (event.type === 'RunFinished') log.ended = true;
  }
  return log;
}

type CallRow = (rowId: string, cells: Record<string, unknown>, signal: AbortSignal) => Promise<RowResult>;

interface Ready {
  rowId: string;
  cells: Record<string, unknown>;
}

/** A result waiting for its append: of a row that started (it holds a slot) or one skipped before it. */
interface Pending extends RowResult {
  started: boolean;
  /** Its cell landed already, with an append whose part on the run did not (a stop came first). */
  cellLanded?: boolean;
  cellTries?: number;
}

/**
 * Drives one run's rows in this process (its run worker holds the run's lease, so no other process
 * does): each step of rows is read (their cells) and recorded `queued`, then the rows are called, at
 * most the run's concurrency at once, and their results recorded on the run and in their cells.
 *
 * Every append goes on the run's stream at exactly the revision the driver last saw, and carries the
 * results that came in since the last one together with the start of as many rows as their slots
 * free: a row is called only once the append with its start has committed, and holds its slot until
 * the append with its result has. So at any moment at most the run's concurrency of rows have started
 * without a result, which is all a crash can repeat (each with the same Idempotency-Key), and starts
 * wait for nothing but the result they replace. A stop is recorded on the same stream: the next append
 * misses its revision, starts nothing, and the driver skips every row not started (rows in their
 * calls finish and are recorded). One append at a time; results arriving during one go in the next.
 */
export class RunDriver {
  private revision: bigint;
  private readonly todo: { first: number; rowIds: string[] }[];
  private readonly ready: Ready[] = [];
  private readonly pending: Pending[] = [];
  private queuedEvents: NewEvent[] = [];
  /** Results whose run part landed but whose cell did not: their cell goes with the next append. */
  private readonly cellRetries: Pending[] = [];
  private inFlight = 0;
  private loading: Promise<void> | undefined;
  private stopping: boolean;
  private callFailure: unknown;
  private wakeUp: (() => void) | undefined;

  constructor(
    private readonly deps: Pick<AppDeps, 'store' | 'pool' | 'clock' | 'logger'>,
    private readonly run: RunCreatedData,
    private readonly log: RunLog,
    private readonly callRow: CallRow,
    private readonly signal: AbortSignal,
  ) {
    this.revision = log.revision;
    this.stopping = log.stopRequested;
    this.todo = [];
    for (let first = 0; first < run.rowIds.length; ) {
      const size = first === 0 ? FIRST_STEP : STEP;
      const rowIds = run.rowIds.slice(first, first + size).filter((id) => !log.finished.has(id));
      if (rowIds.length > 0) this.todo.push({ first, rowIds });
      first += size;
    }
  }

  async drive(): Promise<void> {
    const wake = () => this.wake();
    this.signal.addEventListener('abort', wake);
    try {
      if (this.stopping) await this.skipRest();
      for (;;) {
        if (this.signal.aborted) throw this.signal.reason ?? new Error('aborted');
        if (this.callFailure) throw this.callFailure;
        this.loadAhead();
        const results = this.pending.splice(0);
        const freed = results.filter((r) => r.started).length;
        const starts = this.stopping
          ? []
          : this.ready.splice(0, this.run.concurrency - (this.inFlight - freed));
        const work = results.length + starts.length + this.queuedEvents.length + this.cellRetries.length;
        if (work === 0) {
          if (this.inFlight === 0 && !this.loading && (this.stopping || this.ready.length === 0)) return;
          const woken = await this.sleep();
          if (!woken && !this.stopping && this.ready.length > 0) await this.lookForStop();
          continue;
        }
        if (!(await this.append(results, starts))) {
          this.ready.unshift(...starts);
          this.pending.unshift(...results);
          await this.lookForStop();
          continue;
        }
        this.inFlight += starts.length - freed;
        for (const row of starts) this.call(row);
      }
    } finally {
      this.signal.removeEventListener('abort', wake);
    }
  }

  private call(row: Ready): void {
    this.callRow(row.rowId, row.cells, this.signal).then(
      (result) => {
        this.pending.push({ ...result, started: true });
        this.wake();
      },
      (error) => {
        this.callFailure ??= error;
        this.wake();
      },
    );
  }

  /**
   * One append: the steps queued since the last, the results in, the rows starting, on the run's
   * stream at the revision last seen; each result's cell on its row's stream (and cells that failed
   * alone before). False when the run's stream moved (a stop): nothing of the run's part landed, and
   * nothing starts. The database away: the same append again, with backoff (its ids land it once).
   */
  private async append(results: Pending[], starts: Ready[]): Promise<boolean> {
    const at = this.deps.clock().toISOString();
    const run = { runId: this.run.runId, tableId: this.run.tableId, columnId: this.run.columnId, at };
    const queued = this.queuedEvents.splice(0);
    const events = [
      ...queued,
      ...results.map((r) => finishedEvent(r.finished)),
      ...(starts.length > 0
        ? [
            startedEvent(
              run,
              this.revision,
              starts.map((s) => s.rowId),
            ),
          ]
        : []),
    ];
    const retried = this.cellRetries.splice(0);
    for (let attempt = 0; ; attempt++) {
      if (this.signal.aborted) throw this.signal.reason ?? new Error('aborted');
      const cells = [...retried, ...results].filter((r) => !r.cellLanded);
      const runPart: StreamAppend[] =
        events.length > 0
          ? [{ stream: runStream.name(run.runId), events, expectedRevision: this.revision }]
          : [];
      const appends = [
        ...runPart,
        ...cells.map((r) => finishedCell({ ...run, rowId: r.finished.rowId }, r.finished, r.value)),
      ];
      const outcomes = await this.deps.store
        .appendToStreams(appends)
        .catch((error: Error) => appends.map(() => ({ ok: false as const, error })));
      const failedCells = this.settleCells(cells, outcomes.slice(runPart.length));
      const outcome = runPart.length > 0 ? outcomes[0] : { ok: true as const, result: undefined };
      if (outcome?.ok) {
        if (outcome.result) this.revision = outcome.result.nextExpectedRevision;
        this.cellRetries.push(...failedCells);
        return true;
      }
      if (outcome?.error instanceof WrongExpectedRevisionError) {
        this.queuedEvents.unshift(...queued);
        this.cellRetries.push(...failedCells.filter((c) => retried.includes(c)));
        return false;
      }
      this.deps.logger.warn(
        { err: outcome?.error, runId: run.runId, attempt },
        'run append failed; retrying',
      );
      await new Promise((r) => setTimeout(r, backoffMs(attempt)));
    }
  }

  /** Marks the cells that landed; answers those to try again (a cell given up on is logged). */
  private settleCells(cells: Pending[], outcomes: { ok: boolean; error?: Error }[]): Pending[] {
    return cells.filter((cell, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) {
        cell.cellLanded = true;
        return false;
      }
      cell.cellTries = (cell.cellTries ?? 0) + 1;
      if (cell.cellTries < CELL_TRIES) return true;
      cell.cellLanded = true; // given up: the run's own result stands
      this.deps.logger.error(
        { err: outcome?.error, runId: this.run.runId, rowId: cell.finished.rowId },
        "a run row's cell could not be recorded",
      );
      return false;
    });
  }

  /** Reads the run's stream again (it moved, or has not been looked at for a while): a stop? */
  private async lookForStop(): Promise<void> {
    const stream = runStream.name(this.run.runId);
    const last = (await this.deps.store.readLastEvents([stream])).get(stream);
    if (last && last.revision === this.revision) return;
    const log = await readRunLog(this.deps.store, this.run.runId);
    this.revision = log.revision;
    if (log.stopRequested && !this.stopping) {
      this.stopping = true;
      await this.skipRest();
    }
  }

  /** Every row not started, skipped: the run was stopped. Cells queued or not, nothing is charged. */
  private async skipRest(): Promise<void> {
    await this.loading;
    const at = this.deps.clock().toISOString();
    const rowIds = [
      ...this.ready.splice(0).map((r) => r.rowId),
      ...this.todo.splice(0).flatMap((s) => s.rowIds),
    ];
    this.queuedEvents = [];
    for (let i = 0; i < rowIds.length; i += STEP) {
      const skipped = rowIds.slice(i, i + STEP).map((rowId) => ({
        finished: skippedResult({ ...this.step(rowId), at }, RUN_STOPPED),
        started: false,
      }));
      while (!(await this.append(skipped, []))) {
        const log = await readRunLog(this.deps.store, this.run.runId);
        this.revision = log.revision;
      }
    }
  }

  private step(rowId: string): RowStep {
    const { runId, tableId, columnId } = this.run;
    return { runId, tableId, columnId, rowId, at: '' };
  }

  /** Reads the next step's cells while the rows before it run, once the rows ready run low. */
  private loadAhead(): void {
    if (this.stopping || this.loading || this.todo.length === 0) return;
    if (this.ready.length > Math.max(4 * this.run.concurrency, 200)) return;
    const step = this.todo.shift()!;
    this.loading = this.loadStep(step).finally(() => {
      this.loading = undefined;
      this.wake();
    });
    this.loading.catch(() => {}); // a failed read is thrown by the loop (callFailure)
  }

  private async loadStep(step: { first: number; rowIds: string[] }): Promise<void> {
    const { tableId } = this.run;
    let rows: { id: string; cells: Record<string, unknown> }[];
    for (let attempt = 0; ; attempt++) {
      try {
        ({ rows } = await this.deps.pool.query<{ id: string; cells: Record<string, unknown> }>(
          `SELECT id, cells FROM ${ROWS} WHERE table_id = $1 AND id = ANY($2)`,
          [tableId, step.rowIds],
        ));
        break;
      } catch (error) {
        if (this.signal.aborted) throw error;
        this.deps.logger.warn({ err: error, runId: this.run.runId, attempt }, "reading a run's rows failed");
        await new Promise((r) => setTimeout(r, backoffMs(attempt)));
      }
    }
    if (this.stopping) {
      this.todo.unshift(step);
      return;
    }
    const cellsOf = new Map(rows.map((r) => [r.id, r.cells]));
    const present = step.rowIds.filter((id) => cellsOf.has(id));
    const at = this.deps.clock().toISOString();
    const event = queuedEvent({ ...this.step(''), at }, step.first, present);
    if (present.length > 0 && !this.log.queued.has(event.id!)) this.queuedEvents.push(event);
    for (const rowId of present) this.ready.push({ rowId, cells: cellsOf.get(rowId)! });
    for (const rowId of step.rowIds.filter((id) => !cellsOf.has(id)))
      this.pending.push({
        finished: skippedResult({ ...this.step(rowId), at }, ROW_DELETED),
        started: false,
      });
  }

  private wake(): void {
    const wakeUp = this.wakeUp;
    this.wakeUp = undefined;
    wakeUp?.();
  }

  /** Until a result, a step read or an abort wakes the driver (true), or STOP_POLL_MS pass (false). */
  private sleep(): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = undefined;
        resolve(false);
      }, STOP_POLL_MS);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }
}
