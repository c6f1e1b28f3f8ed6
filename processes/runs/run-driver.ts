import { ROWS } from '../../projections/rows/rows.ts';
import { eligibility } from '../../queries/rows/eligibility.ts';
import type { RunScope } from '../../queries/rows/run-scope.ts';
import type { ServiceDeps } from '../../src/deps.ts';
import type { Column } from '../../src/domain/columns/fields.ts';
import type { RunCreatedData } from '../../src/domain/runs/events.ts';
import {
  NO_LONGER_ELIGIBLE,
  queuedEvent,
  type RowStep,
  RUN_STOPPED,
  rowsLeftEvent,
  skippedResult,
} from '../../src/domain/runs/row-records.ts';
import type { RunColumn } from './executor.ts';
import { cellsLogged } from './record.ts';
import { type RowResult, tableColumns } from './row-call.ts';
import type { RunLog } from './run-log.ts';
import { RunLogWriter } from './run-log-writer.ts';
import { type DrivenRun, dropResults, storedResults, storeResults } from './run-outbox.ts';
import { runRetries } from './run-retries.ts';

/** Rows queued in the first step (soon running) and in each step after (ahead of the rows running). */
const FIRST_STEP = 64;
const STEP = 1000;
/** How often a driver with every slot in a call looks for a stop. */
const STOP_POLL_MS = 250;

const ROW_DELETED = { code: 'row_not_found', message: 'the row was deleted' };

type CallRow = (rowId: string, cells: Record<string, unknown>, signal: AbortSignal) => Promise<RowResult>;

interface Ready {
  rowId: string;
  cells: Record<string, unknown>;
}

type Deps = Pick<ServiceDeps, 'store' | 'pool' | 'clock' | 'logger'>;

/**
 * Drives one run's rows in this process (its run worker holds the run's lease, so no other process
 * does): each step of rows is read (their cells) and recorded `queued`, then the rows are called, at
 * most the run's concurrency at once.
 *
 * A row's slot is taken when it starts and freed once its result is stored (run_row_results, one
 * short insert for the results that came in together); the same statement answers whether the run was
 * asked to stop, and rows start only after such an answer was no. So at any moment at most the run's
 * concurrency of rows have started without a stored result, which is all a crash can repeat (each
 * with the same Idempotency-Key), and no row starts after a stop's answer (the stop is flagged before
 * it answers): the driver skips every row not started, and rows in their calls finish and are recorded.
 * The events (starts, results, cells) go into the log behind, many rows an append (RunLogWriter).
 * Driven again after a crash, the run goes on from its log and its stored results.
 */
export class RunDriver {
  private readonly todo: { first: number; rowIds: string[] }[] = [];
  private readonly ready: Ready[] = [];
  private readonly pending: RowResult[] = [];
  private readonly writer: RunLogWriter;
  private inFlight = 0;
  private loading: Promise<void> | undefined;
  private stopping = false;
  private callFailure: unknown;
  private wakeUp: (() => void) | undefined;

  private readonly driven: DrivenRun;
  private readonly retrying: ReturnType<typeof runRetries>;
  /**
   * A run selecting its rows as it goes (RunCreated.selection): where the next step starts (the last
   * row selected), how many were taken, how many steps, and whether it selects any more.
   */
  private selecting: { after: string; taken: number; steps: number; more: boolean } | undefined;
  private selectionSql: ReturnType<typeof selectionQuery> | undefined;
  /** Rows with a result when this driver took the run over. */
  private done: ReadonlySet<string> = new Set();

  constructor(
    private readonly deps: Deps,
    private readonly run: RunCreatedData,
    private readonly log: RunLog,
    private readonly callRow: CallRow,
    private readonly signal: AbortSignal,
    lease: { itemId: string; owner: string },
  ) {
    this.writer = new RunLogWriter(deps, run, signal);
    this.driven = { runId: run.runId, ...lease };
    this.retrying = runRetries(deps, run.runId, signal);
  }

  async drive(): Promise<void> {
    const wake = () => this.wake();
    this.signal.addEventListener('abort', wake);
    try {
      await this.resume();
      if (this.log.stopRequested || (await this.store([]))) await this.stop();
      await this.loop();
      await this.writer.drain();
      this.throwIfAborted();
    } catch (error) {
      await this.writer.settle();
      throw error;
    } finally {
      this.signal.removeEventListener('abort', wake);
    }
  }

  /**
   * Results a driver before this one stored: into the log, not run again. One already on the run has
   * its cell in the log too (RunLogWriter puts cells in first) and is only deleted; of the others, a
   * cell that landed before the driver died is not sent again (on EventStoreDB a repeat could land twice).
   */
  private async resume(): Promise<void> {
    const { runId } = this.run;
    const stored = await this.retrying(() => storedResults(this.deps.pool, runId));
    const done = new Set(this.log.finished);
    const logged = stored.map((r) => r.finished.rowId).filter((rowId) => done.has(rowId));
    await this.retrying(() => dropResults(this.deps.pool, runId, logged));
    const rest = stored.filter((r) => !done.has(r.finished.rowId));
    const rowIds = rest.map((r) => r.finished.rowId);
    const inLog = await this.retrying(() => cellsLogged(this.deps.store, this.run, rowIds));
    for (const result of rest) {
      this.writer.finish(result, true, inLog.get(result.finished.rowId));
      done.add(result.finished.rowId);
    }
    if (this.run.selection) {
      // Selected as it goes: the steps queued so far are run again where they have no result; the
      // selection goes on after the last row they took. The steps are numbered in the log's order.
      // Rows with a result (a driver before this one stored it, but queued no step of it) are not
      // called again when a step selects them.
      this.done = done;
      const steps = this.log.queuedSteps;
      steps.forEach((rowIds, step) => {
        const left = rowIds.filter((id) => !done.has(id));
        if (left.length > 0) this.todo.push({ first: step, rowIds: left });
      });
      this.selecting = {
        after: steps.at(-1)?.at(-1) ?? '',
        taken: steps.reduce((n, rowIds) => n + rowIds.length, 0),
        steps: steps.length,
        more: !this.log.rowsLeft,
      };
      return;
    }
    for (let first = 0; first < this.run.rowIds.length; ) {
      const size = first === 0 ? FIRST_STEP : STEP;
      const rowIds = this.run.rowIds.slice(first, first + size).filter((id) => !done.has(id));
      if (rowIds.length > 0) this.todo.push({ first, rowIds });
      first += size;
    }
  }

  private async loop(): Promise<void> {
    for (;;) {
      this.throwIfAborted();
      if (this.callFailure) throw this.callFailure;
      this.loadAhead();
      const results = this.pending.splice(0);
      const starts = this.stopping
        ? 0
        : Math.min(this.ready.length, this.run.concurrency - (this.inFlight - results.length));
      if (results.length === 0 && starts === 0) {
        const selectable = this.selecting?.more === true && !this.stopping;
        if (this.inFlight === 0 && !this.loading && !selectable && (this.stopping || this.ready.length === 0))
          return;
        const woken = await this.sleep();
        if (!woken && !this.stopping && this.ready.length > 0 && (await this.store([]))) await this.stop();
        continue;
      }
      const stopped = await this.store(results);
      this.inFlight -= results.length;
      for (const result of results) this.writer.finish(result, true);
      if (stopped) {
        if (!this.stopping) await this.stop();
        continue;
      }
      this.throwIfAborted();
      const rows = this.ready.splice(0, starts);
      this.inFlight += rows.length;
      this.writer.start(rows.map((r) => r.rowId));
      for (const row of rows) this.call(row);
    }
  }

  /**
   * Stores results and answers whether the run was asked to stop. A lease lost meanwhile (another
   * process drives the run now) ends this driver: it starts nothing more.
   */
  private async store(results: readonly RowResult[]): Promise<boolean> {
    const { stopped, held } = await this.retrying(() => storeResults(this.deps.pool, this.driven, results));
    if (!held) throw new Error(`run ${this.run.runId}: its lease is held by another process now`);
    return stopped;
  }

  private call(row: Ready): void {
    this.callRow(row.rowId, row.cells, this.signal).then(
      (result) => {
        this.pending.push(result);
        this.wake();
      },
      (error) => {
        this.callFailure ??= error;
        this.wake();
      },
    );
  }

  /** Every row not started, skipped: the run was stopped. Nothing is charged for them. */
  private async stop(): Promise<void> {
    this.stopping = true;
    await this.loading;
    const at = this.deps.clock().toISOString();
    const rest = [
      ...this.ready.splice(0).map((r) => r.rowId),
      ...this.todo.splice(0).flatMap((s) => s.rowIds),
    ];
    for (const rowId of rest)
      this.writer.finish({ finished: skippedResult(this.step(rowId, at), RUN_STOPPED) }, false);
    // Rows a selecting run had not selected yet: skipped, counted, without a result each.
    this.selectNoMore(RUN_STOPPED, at);
  }

  /** A selecting run selects nothing more: the funded rows no step took are left, once. */
  private selectNoMore(reason: { code: string; message: string }, at: string): void {
    const selecting = this.selecting;
    if (!selecting?.more) return;
    selecting.more = false;
    const funded = this.run.selection!.funded;
    if (selecting.taken < funded)
      this.writer.queue(rowsLeftEvent(this.run.runId, funded - selecting.taken, reason, at));
  }

  private step(rowId: string, at: string): RowStep {
    const { runId, tableId, columnId } = this.run;
    return { runId, tableId, columnId, rowId, at };
  }

  /** Reads the next step's cells while the rows before it run, once the rows ready run low. */
  private loadAhead(): void {
    const selecting = this.selecting?.more === true && this.todo.length === 0;
    if (this.stopping || this.loading || (this.todo.length === 0 && !selecting)) return;
    if (this.ready.length > Math.max(4 * this.run.concurrency, 200)) return;
    const step = this.todo.shift();
    this.loading = (step ? this.loadStep(step) : this.selectStep())
      .catch((error) => {
        this.callFailure ??= error;
      })
      .finally(() => {
        this.loading = undefined;
        this.wake();
      });
  }

  private async loadStep(step: { first: number; rowIds: string[] }): Promise<void> {
    const { rows } = await this.retrying(() =>
      this.deps.pool.query<{ id: string; cells: Record<string, unknown> }>(
        `SELECT id, cells FROM ${ROWS} WHERE table_id = $1 AND id = ANY($2)`,
        [this.run.tableId, step.rowIds],
      ),
    );
    if (this.stopping) {
      this.todo.unshift(step);
      return;
    }
    const cellsOf = new Map(rows.map((r) => [r.id, r.cells]));
    const present = step.rowIds.filter((id) => cellsOf.has(id));
    const at = this.deps.clock().toISOString();
    const { runId, tableId, columnId } = this.run;
    const event = queuedEvent({ runId, tableId, columnId, at }, step.first, present);
    if (present.length > 0 && !this.log.queued.has(event.id!)) this.writer.queue(event);
    for (const rowId of present) this.ready.push({ rowId, cells: cellsOf.get(rowId)! });
    for (const rowId of step.rowIds.filter((id) => !cellsOf.has(id)))
      this.writer.finish({ finished: skippedResult(this.step(rowId, at), ROW_DELETED) }, false);
  }

  /**
   * The next step of a run selecting as it goes: the next rows in row order, after the last one taken
   * and among those there at the start, that are eligible now (the start's scope, the column's
   * condition as the run holds it), with their cells; queued as one step. None left (or the funded rows
   * all taken): the selection ends, and funded rows no step took are left.
   */
  private async selectStep(): Promise<void> {
    const selecting = this.selecting!;
    const { funded } = this.run.selection!;
    const size = Math.min(selecting.steps === 0 ? FIRST_STEP : STEP, funded - selecting.taken);
    const at = this.deps.clock().toISOString();
    if (size <= 0) return this.selectNoMore(NO_LONGER_ELIGIBLE, at);
    this.selectionSql ??= selectionQuery(
      await this.retrying(() => tableColumns(this.deps, this.run.tableId)),
      this.run,
    );
    const { text, values } = this.selectionSql(selecting.after, size);
    const { rows } = await this.retrying(() =>
      this.deps.pool.query<{ id: string; cells: Record<string, unknown> }>(text, values),
    );
    if (this.stopping) return;
    if (rows.length > 0) {
      const { runId, tableId, columnId } = this.run;
      const rowIds = rows.map((r) => r.id);
      this.writer.queue(queuedEvent({ runId, tableId, columnId, at }, selecting.steps, rowIds));
      selecting.steps++;
      selecting.taken += rows.length;
      selecting.after = rowIds.at(-1)!;
      for (const row of rows)
        if (!this.done.has(row.id)) this.ready.push({ rowId: row.id, cells: row.cells });
    }
    if (rows.length < size || selecting.taken >= funded) this.selectNoMore(NO_LONGER_ELIGIBLE, at);
  }

  private throwIfAborted(): void {
    if (this.signal.aborted) throw this.signal.reason ?? new Error('aborted');
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

/**
 * The statement of a selecting run's next step (after a row id, at most `limit` rows): the eligibility
 * a start computes (queries/rows/eligibility.ts), with the column as the run holds it, over the rows
 * there at the start.
 */
function selectionQuery(columns: readonly RunColumn[], run: RunCreatedData) {
  const selection = run.selection!;
  const column = { ...run.column, kind: 'enrichment' } as unknown as Column;
  return (after: string, limit: number) => {
    const scope = selection.scope as RunScope;
    const { params, inScope, filled, eligible } = eligibility(
      columns as unknown as Column[],
      column,
      run.tableId,
      scope,
    );
    return {
      text: `SELECT r.id, r.cells FROM ${ROWS} r
        WHERE ${inScope} AND NOT ${filled} AND ${eligible}
          AND r.id > ${params.add(after)} AND r.id <= ${params.add(selection.upTo)}
        ORDER BY r.id LIMIT ${params.add(limit)}`,
      values: params.values,
    };
  };
}
