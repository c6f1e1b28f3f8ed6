import type { ExecutorContext, RowWriter, RunColumn } from '../../processes/runs/executor.ts';

type Insert = Parameters<RowWriter['insert']>[0];

/**
 * A RowWriter that keeps what it is asked in memory: a test double of our own seam, answering as the
 * rows API does (ids in the order sent, a repeated batchKey answering its first outcome).
 */
export class RecordingRowWriter implements RowWriter {
  readonly calls: Insert[] = [];
  private readonly batches = new Map<string, string[]>();
  private next = 0;
  /** Set to make the next insert fail with this error. */
  failWith?: Error;

  async insert(input: Insert): Promise<{ rowIds: string[] }> {
    this.calls.push(structuredClone(input));
    if (this.failWith) throw this.failWith;
    const earlier = this.batches.get(input.batchKey);
    if (earlier) return { rowIds: earlier };
    const rowIds = input.rows.map(() => `row_dest${++this.next}`);
    this.batches.set(input.batchKey, rowIds);
    return { rowIds };
  }

  /** Every destination row written, in order, across calls (repeats included). */
  get rows() {
    return this.calls.flatMap((c) => c.rows.map((r) => r.cells));
  }
}

export interface ContextOptions {
  config: Record<string, unknown>;
  cells?: Record<string, unknown>;
  dataType?: string;
  /** Other columns of the table; `key`'s column is added first. */
  columns?: Omit<RunColumn, 'config'>[];
  secrets?: Record<string, string>;
  signal?: AbortSignal;
  rows?: RowWriter;
}

/** One row of a run as an executor receives it, with secrets from a plain map. */
export function executorContext(options: ContextOptions): ExecutorContext & { secretsAsked: string[] } {
  const column: RunColumn = {
    id: 'col_run',
    key: 'result',
    dataType: options.dataType ?? 'text',
    config: options.config,
  };
  const secretsAsked: string[] = [];
  const cells = options.cells ?? {};
  const others =
    options.columns ??
    Object.keys(cells).map((key) => ({
      id: `col_${key}`,
      key,
      dataType: typeof cells[key] === 'object' ? 'json' : 'text',
    }));
  return {
    organizationId: 'org_test',
    tableId: 'tbl_source',
    runId: 'run_test',
    column,
    row: { id: 'row_source1', cells },
    columns: [column, ...others.map((c) => ({ ...c, config: {} }))],
    idempotencyKey: 'run_test:row_source1',
    resolveSecret: async (name) => {
      secretsAsked.push(name);
      return options.secrets?.[name];
    },
    rows: options.rows ?? new RecordingRowWriter(),
    signal: options.signal ?? new AbortController().signal,
    now: () => new Date('2026-01-01T00:00:00Z'),
    secretsAsked,
  };
}

let runs = 0;

/**
 * One row of a run in a real organization and table, for providers that write through the store
 * (add_to_crm, add_to_sequence): each call is a run of its own, so its idempotency key is new.
 */
export function runRowContext(input: {
  organizationId: string;
  tableId: string;
  column: Partial<RunColumn> & { config: Record<string, unknown> };
  row: { id?: string; cells: Record<string, unknown> };
  now?: () => Date;
}): ExecutorContext {
  const runId = `run_test${++runs}`;
  const rowId = input.row.id ?? `row_${runs}`;
  return {
    ...executorContext({ config: input.column.config, cells: input.row.cells, columns: [] }),
    organizationId: input.organizationId,
    tableId: input.tableId,
    runId,
    column: { id: 'col_test', key: 'result', dataType: 'json', ...input.column },
    row: { id: rowId, cells: input.row.cells },
    idempotencyKey: `${runId}:${rowId}`,
    rows: { insert: () => Promise.reject(new Error('these providers write no rows')) },
    now: input.now ?? (() => new Date()),
  };
}
