/**
 * What a column run asks of a provider, once per eligible row: the seam between the run machinery
 * (queue, leases, credits, events: src/domain/runs/) and the providers (./executors/). An executor
 * never throws for anything the row or the outside world did wrong: it answers a failed outcome with
 * a code, and the run records it as that row's error. A throw is a bug in the executor (the worker
 * retries the item, then records `internal`).
 */

/** The column being run, as its config was when the run started. */
export interface RunColumn {
  id: string;
  key: string;
  dataType: string;
  config: Readonly<Record<string, unknown>>;
}

/** One row as the executor sees it: cell values keyed by column KEY (templates name keys). */
export interface RunRow {
  id: string;
  cells: Readonly<Record<string, unknown>>;
}

/** Rows an executor writes into another table (sync_to_table), through the rows API's own commands. */
export interface RowWriter {
  /**
   * Inserts (or, with `upsertOn`, updates) rows of a table of the same organization, as
   * `POST /api/tables/{tableId}/rows` would, so the destination's auto-run sees them. `batchKey` makes
   * a repeat (the same run and row after a crash) a no-op that answers the first outcome.
   */
  insert(input: {
    tableId: string;
    rows: { cells: Record<string, unknown> }[];
    upsertOn?: string;
    batchKey: string;
  }): Promise<{ rowIds: string[] }>;
}

export interface ExecutorContext {
  organizationId: string;
  tableId: string;
  runId: string;
  column: RunColumn;
  row: RunRow;
  /** The other columns of the table (keys, ids, data types), for mappings that name them. */
  columns: readonly RunColumn[];
  /** `run id` + `row id`: every outbound call carries it as `Idempotency-Key`. */
  idempotencyKey: string;
  /** The value of `{{secrets.name}}` at call time, or undefined when there is no such secret. */
  resolveSecret(name: string): Promise<string | undefined>;
  rows: RowWriter;
  /** Aborted when the process shuts down or the item's lease is lost: stop and answer. */
  signal: AbortSignal;
  now(): Date;
}

/** What the run shows per row (`GET /api/runs/{runId}/rows`). */
export interface ExecutionMeta {
  httpStatus?: number;
  durationMs: number;
  attempts: number;
  /** The answer came from the organization's search cache: nothing was called, nothing is charged. */
  cached?: boolean;
}

export type ExecutionOutcome =
  | { ok: true; value: unknown; meta: ExecutionMeta }
  | { ok: false; error: { code: string; message: string }; meta: ExecutionMeta };

export type Executor = (context: ExecutorContext) => Promise<ExecutionOutcome>;
