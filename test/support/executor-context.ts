import type { ExecutorContext, RunColumn } from '../../src/domain/runs/executor.ts';

let runs = 0;

/**
 * An ExecutorContext as a column run would give one row: the run machinery is not here, so the tests
 * of a provider call its executor directly with this (real store and pool underneath).
 */
export function executorContext(input: {
  organizationId: string;
  tableId: string;
  column: Partial<RunColumn> & { config: Record<string, unknown> };
  row: { id?: string; cells: Record<string, unknown> };
  now?: () => Date;
}): ExecutorContext {
  const runId = `run_test${++runs}`;
  const rowId = input.row.id ?? `row_${runs}`;
  return {
    organizationId: input.organizationId,
    tableId: input.tableId,
    runId,
    column: { id: 'col_test', key: 'result', dataType: 'json', ...input.column },
    row: { id: rowId, cells: input.row.cells },
    columns: [],
    idempotencyKey: `${runId}:${rowId}`,
    resolveSecret: async () => undefined,
    rows: {
      insert: () => Promise.reject(new Error('these providers write no rows')),
    },
    signal: new AbortController().signal,
    now: input.now ?? (() => new Date()),
  };
}
