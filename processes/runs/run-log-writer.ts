import { randomUUID } from 'node:crypto';
import { backoffMs } from '../../src/db/backoff.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import type { RunCreatedData } from '../../src/domain/runs/events.ts';
import {
  finishedCell,
  finishedEvent,
  startedEvent,
  VALUE_NOT_RECORDED,
} from '../../src/domain/runs/row-records.ts';
import { runStream } from '../../src/domain/runs/run-state.ts';
import { IdempotencyConflictError, InvalidEventError } from '../../src/event-store/errors.ts';
import type { NewEvent, StreamAppend } from '../../src/event-store/port.ts';
import type { LoggedCell } from './record.ts';
import type { RowResult } from './row-call.ts';
import { dropResults } from './run-outbox.ts';
import { runRetries } from './run-retries.ts';

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
/** Tries of a cell's append refused for what it holds (`refusedForItself`), before its row fails. */
const CELL_TRIES = 5;

interface Held extends RowResult {
  /** In run_row_results (dropped once its events are in the log). */
  stored: boolean;
  /** Its cell is in the log already (found there by a driver taking the run over): only the run's part goes. */
  cellLogged?: boolean;
  /** Appends of its cell refused for what it holds (`refusedForItself`). */
  tries?: number;
  /** Its value was refused; this is its error in its place. */
  refused?: boolean;
}

/**
 * Writes what a run's driver did into the log, many rows an append: the steps queued, the rows started
 * (one RunRowsStarted an append), each result in its cell and on the run. Appends go one at a time, in
 * the order things happened: each write puts its results' cells (each on its row's stream) in first,
 * then on the run's stream the steps queued, the starts and the results (the read models take a cell
 * before its start). Every FLUSH_MS, or FLUSH_ROWS results a write; a result that was stored in
 * run_row_results leaves it once it is on the run. An append the database refuses is tried again with
 * backoff (its ids land it once); a cell value the log refuses for itself fails its row instead.
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
    private readonly deps: Pick<ServiceDeps, 'store' | 'pool' | 'logger' | 'clock'>,
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

  /**
   * A row's result: into its cell, then on the run. `logged`: its cell is in the log already (a driver
   * before this one wrote it), as its value or, refused, as value_not_recorded, which the run then says too.
   */
  finish(result: RowResult, stored: boolean, logged?: LoggedCell): void {
    const held: Held = { ...result, stored, cellLogged: logged !== undefined };
    this.results.push(logged?.refused ? refusedCell(held) : held);
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
    // Cells first: once a row's result is on the run, its cell is in the log too (or its error in its
    // place), on every store (an append over several streams is one transaction on PostgreSQL only), so
    // a run whose results are all in may end and forget what it stored. Aborted meanwhile, nothing more
    // goes: the next driver sends these results again.
    const recorded = await this.appendCells(results, at);
    if (!recorded) return;
    const runEvents: NewEvent[] = [
      ...queued,
      ...(started.length > 0
        ? [startedEvent({ runId, tableId, columnId, at }, [this.nonce, String(this.appends++)], started)]
        : []),
      ...recorded.map((r) => finishedEvent(r.finished)),
    ];
    if (runEvents.length > 0 && !(await this.appendRun({ stream: runStream.name(runId), events: runEvents })))
      return;
    const stored = results.filter((r) => r.stored).map((r) => r.finished.rowId);
    // Aborted meanwhile: the next driver drops them.
    const retrying = runRetries(this.deps, runId, this.signal);
    await retrying(() => dropResults(this.deps.pool, runId, stored)).catch(() => {});
  }

  /**
   * The results' cells into the log (those not there already), tried again with backoff while the
   * database is away; a cell the log refuses for itself CELL_TRIES times gets its error instead. The
   * results as recorded (with such an error in place of their own), or undefined once aborted.
   */
  private async appendCells(results: readonly Held[], at: string): Promise<Held[] | undefined> {
    const { runId, tableId, columnId } = this.run;
    const recorded = new Map(results.map((r) => [r.finished.rowId, r]));
    let cells = results.filter((r) => !r.cellLogged);
    for (let attempt = 0; cells.length > 0; attempt++) {
      if (!(await this.backOff(attempt))) return undefined;
      const appends = cells.map((r) =>
        finishedCell({ runId, tableId, columnId, rowId: r.finished.rowId, at }, r.finished, r.value),
      );
      const outcomes = await this.deps.store
        .appendToStreams(appends)
        .catch((error: Error) => appends.map(() => ({ ok: false as const, error })));
      const away = outcomes.find((o) => !o.ok && !refusedForItself(o.error));
      if (away && !away.ok)
        this.deps.logger.warn({ err: away.error, runId, attempt }, "a run's cells failed; retrying");
      cells = cells.flatMap((cell, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) return [];
        if (!refusedForItself(outcome.error)) return [cell];
        cell.tries = (cell.tries ?? 0) + 1;
        if (cell.tries < CELL_TRIES) return [cell];
        const { rowId } = cell.finished;
        if (cell.refused) {
          // Its error refused as well, which holds only ids and a fixed text: not for what it holds. Tried
          // again, so that its result never goes on the run without a cell.
          this.deps.logger.error(
            { err: outcome.error, runId, rowId },
            "a run row's cell is refused; retrying",
          );
          return [{ ...cell, tries: 0 }];
        }
        this.deps.logger.error(
          { err: outcome.error, runId, rowId },
          "a run row's value could not be recorded in its cell; the row fails with value_not_recorded",
        );
        const failed = refusedCell(cell);
        recorded.set(rowId, failed);
        return [failed];
      });
    }
    return results.map((r) => recorded.get(r.finished.rowId)!);
  }

  /** Before try `attempt` of an append: waits out its backoff (none the first time); false once aborted. */
  private async backOff(attempt: number): Promise<boolean> {
    if (attempt === 0) return true;
    if (this.signal.aborted) return false;
    await new Promise((r) => setTimeout(r, backoffMs(attempt - 1)));
    return true;
  }

  /** The run's part into the log, tried again until it lands (false: aborted first). */
  private async appendRun(part: StreamAppend): Promise<boolean> {
    const runId = this.run.runId;
    let rest: StreamAppend | undefined = part;
    for (let attempt = 0; rest; attempt++) {
      if (!(await this.backOff(attempt))) return false;
      const [outcome] = await this.deps.store
        .appendToStreams([rest])
        .catch((error: Error) => [{ ok: false as const, error }]);
      if (outcome!.ok) rest = undefined;
      else if (outcome!.error instanceof IdempotencyConflictError) {
        // Some of these events are in the log already: appended by a driver of this run before this one
        // (taken over while its last append was under way). The rest go again, once.
        rest = await this.withoutLogged(rest).catch(() => rest);
      } else
        this.deps.logger.warn({ err: outcome!.error, runId, attempt }, "a run's append failed; retrying");
    }
    return true;
  }
}

/**
 * Refused for what the part holds, which trying again cannot change: data the database refuses
 * (SQLSTATE class 22: a NUL character, an unpaired surrogate), an event its schema refuses, ids taken.
 * Anything else (a connection lost, the database away) is tried again without counting.
 */
function refusedForItself(error: unknown): boolean {
  if (error instanceof InvalidEventError || error instanceof IdempotencyConflictError) return true;
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('22');
}

/** A row whose value the log refused: failed with value_not_recorded, on the run and in its cell. */
const refusedCell = (cell: Held): Held => ({
  ...cell,
  refused: true,
  tries: 0,
  value: undefined,
  finished: { ...cell.finished, outcome: 'failed', error: VALUE_NOT_RECORDED },
});
