import { randomUUID } from 'node:crypto';
import { backoffMs } from '../../db/backoff.ts';
import { IdempotencyConflictError } from '../../event-store/errors.ts';
import type { NewEvent, StreamAppend } from '../../event-store/port.ts';
import type { AppDeps } from '../../http/app.ts';
import type { RunCreatedData } from './events.ts';
import { finishedCell, finishedEvent, startedEvent } from './record.ts';
import type { RowResult } from './row-call.ts';
import { dropResults } from './run-outbox.ts';
import { runRetries } from './run-retries.ts';
import { runStream } from './run-state.ts';

/**
 * Results held for one append at most this long after the first of them came in... Every append is a
 * batch (a transaction of about eight statements) in each of the five read models following runs, so
 * fewer, larger ones cost far less per row: 20, 50, 100 and 200 ms measured 1,240-1,390, 1,525-1,560,
 * 1,600 and 1,510 rows/s (PostgreSQL 0.57, 0.35, 0.30, 0.31 ms of CPU a row). A run's last results go
 * at once (`drain`), so a one-row run waits for none of it.
 */
const FLUSH_MS = 100;
/** ...or until this many are in. */
const FLUSH_ROWS = 500;
/** Tries of a cell's append that fails on its own (a value the log refuses), before it is logged. */
const CELL_TRIES = 5;

interface Held extends RowResult {
  /** In run_row_results (dropped once its events are in the log). */
  stored: boolean;
  /** Its RunRowFinished is in the log already: only its cell goes (again: a no-op where it landed). */
  logged?: boolean;
  /** Appends of its cell refused for itself (not with the rest: the database away). */
  tries?: number;
  /** Its value was refused; this is its error in its place. */
  refused?: boolean;
}

/**
 * Writes what a run's driver did into the log, many rows an append: the steps queued, the rows started
 * (one RunRowsStarted an append), each result on the run and in its cell. Appends go one at a time, in
 * the order things happened: on the run's stream a step's queue, then starts, then results; a row's
 * cell is on its own stream and may come first in the log's order within one append (its read models
 * take either order). Every FLUSH_MS, or FLUSH_ROWS results an append; a result that was stored in
 * run_row_results leaves it once its events are in. An append the database refuses is tried again
 * with backoff (its ids land it once); a cell value the log refuses alone becomes the cell's error.
 */
export class RunLogWriter {
  private queued: NewEvent[] = [];
  private started: string[] = [];
  private results: Held[] = [];
  private writing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  /** Names this writer's RunRowsStarted events apart from another driver's of the same run. */
  private readonly nonce = randomUUID();
  private appends = 0;
  /** Cut off (`settle`): writes nothing more of its own accord. */
  private settled = false;

  constructor(
    private readonly deps: Pick<AppDeps, 'store' | 'pool' | 'logger' | 'clock'>,
    private readonly run: RunCreatedData,
    private readonly signal: AbortSignal,
  ) {}

  queue(event: NewEvent): void {
    this.queued.push(event);
    this.soon();
  }

  start(rowIds: readonly string[]): void {
    this.started.push(...rowIds);
    this.soon();
  }

  finish(result: RowResult, stored: boolean, logged = false): void {
    this.results.push({ ...result, stored, logged });
    if (this.results.length >= FLUSH_ROWS) this.writeNow();
    else this.soon();
  }

  /** Everything handed over so far in the log (and out of run_row_results). */
  async drain(): Promise<void> {
    while (this.writing || this.pendingCount() > 0) {
      if (!this.writing) this.writeNow();
      await this.writing;
    }
  }

  private pendingCount(): number {
    return this.queued.length + this.started.length + this.results.length;
  }

  private soon(): void {
    if (this.timer || this.writing || this.settled) return;
    this.timer = setTimeout(() => this.writeNow(), FLUSH_MS);
  }

  private writeNow(): void {
    if (this.writing) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.write().finally(() => {
      this.writing = undefined;
      if (this.settled || this.pendingCount() === 0) return;
      if (this.results.length >= FLUSH_ROWS) this.writeNow();
      else this.soon();
    });
    this.writing.catch(() => {}); // drain awaits it; an abort is the driver's to throw
  }

  /** The part without the events already in the run's stream (undefined when none is left). */
  private async withoutLogged(part: StreamAppend): Promise<StreamAppend | undefined> {
    const logged = new Set((await this.deps.store.readStream(part.stream)).map((e) => e.id));
    const events = part.events.filter((e) => !logged.has(e.id!));
    return events.length > 0 ? { ...part, events } : undefined;
  }

  /** The append under way, if any, ended: a driver cut off leaves nothing in flight behind it. */
  async settle(): Promise<void> {
    this.settled = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.writing;
  }

  private async write(): Promise<void> {
    const { runId, tableId, columnId } = this.run;
    const at = this.deps.clock().toISOString();
    const queued = this.queued.splice(0);
    const started = this.started.splice(0);
    const results = this.results.splice(0, FLUSH_ROWS);
    const runEvents: NewEvent[] = [
      ...queued,
      ...(started.length > 0
        ? [startedEvent({ runId, tableId, columnId, at }, [this.nonce, String(this.appends++)], started)]
        : []),
      ...results.filter((r) => !r.logged).map((r) => finishedEvent(r.finished)),
    ];
    let runPart: StreamAppend | undefined =
      runEvents.length > 0 ? { stream: runStream.name(runId), events: runEvents } : undefined;
    let cells = results;
    for (let attempt = 0; runPart || cells.length > 0; attempt++) {
      if (attempt > 0) {
        if (this.signal.aborted) return;
        await new Promise((r) => setTimeout(r, backoffMs(attempt - 1)));
      }
      const appends = [
        ...(runPart ? [runPart] : []),
        ...cells.map((r) =>
          finishedCell({ runId, tableId, columnId, rowId: r.finished.rowId, at }, r.finished, r.value),
        ),
      ];
      const outcomes = await this.deps.store
        .appendToStreams(appends)
        .catch((error: Error) => appends.map(() => ({ ok: false as const, error })));
      // A part refused while others landed is refused for itself (a value the log cannot store); all
      // refused is the database away, which counts against no cell.
      const alone = outcomes.some((o) => o.ok);
      const offset = runPart ? 1 : 0;
      const runOutcome = runPart ? outcomes[0] : undefined;
      if (runOutcome?.ok) runPart = undefined;
      else if (runPart && runOutcome?.error instanceof IdempotencyConflictError) {
        // Some of these events are in the log already: appended by a driver of this run before this one
        // (taken over while its last append was under way). The rest go again, once.
        runPart = await this.withoutLogged(runPart).catch(() => runPart);
      } else if (runPart)
        this.deps.logger.warn({ err: runOutcome?.error, runId, attempt }, "a run's append failed; retrying");
      cells = cells.flatMap((cell, i) => {
        const outcome = outcomes[offset + i];
        if (outcome?.ok) return [];
        if (alone) cell.tries = (cell.tries ?? 0) + 1;
        if ((cell.tries ?? 0) < CELL_TRIES) return [cell];
        this.deps.logger.error(
          { err: outcome?.error, runId, rowId: cell.finished.rowId },
          "a run row's value could not be recorded in its cell; the cell shows an error instead",
        );
        return cell.refused ? [] : [refusedCell(cell)];
      });
    }
    const stored = results.filter((r) => r.stored).map((r) => r.finished.rowId);
    // Aborted meanwhile: the next driver drops them.
    const retrying = runRetries(this.deps, runId, this.signal);
    await retrying(() => dropResults(this.deps.pool, runId, stored)).catch(() => {});
  }
}

/** A cell whose value the log refused: its error instead (the run's own result stands). */
const refusedCell = (cell: Held): Held => ({
  ...cell,
  refused: true,
  tries: 0,
  value: undefined,
  finished: {
    ...cell.finished,
    outcome: 'failed',
    error: { code: 'value_not_recorded', message: 'the event log refused the value (a NUL character?)' },
  },
});
