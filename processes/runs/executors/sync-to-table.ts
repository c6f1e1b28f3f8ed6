import type { z } from 'zod';
import {
  DEFAULT_LIST_PATH,
  type SyncToTableConfigSchema,
} from '../../../src/domain/columns/config/sync-to-table.ts';
import { parseJsonPath, resolvePath } from '../../../src/domain/columns/json-path.ts';
import type { RunCondition } from '../../../src/domain/columns/run-condition.ts';
import type { RowColumn } from '../../../src/domain/rows/cells.ts';
import { isEligible } from '../../../src/domain/rows/condition/evaluate.ts';
import { prepareCondition, resolverFor } from '../../../src/domain/rows/condition/prepare.ts';
import { MAX_BATCH } from '../../../src/domain/rows/schemas.ts';
import { AppError } from '../../../src/errors.ts';
import type { ExecutionOutcome, Executor, ExecutorContext } from '../executor.ts';
import { failed, since, succeeded } from './outcome.ts';

type SyncConfig = z.output<typeof SyncToTableConfigSchema>;
type Mapping = NonNullable<SyncConfig['columnMappings']>[number];

/** What one source row syncs: the first matching route's settings over the column's own. */
interface Plan {
  syncMode: 'row' | 'list';
  syncBehavior: 'link' | 'copy';
  listSourceColumnId?: string;
  listPath: string;
  columnMappings: readonly Mapping[];
}

/** The sync column's cell: the destination table and the rows this source row made there. */
export interface SyncValue {
  tableId: string;
  rowIds: string[];
  syncBehavior: 'link' | 'copy';
  /** link only: the source row, so each destination row can be traced back to the row that made it. */
  sourceRowId?: string;
}

/** Cells keyed by column id, as the rows condition evaluator reads them. */
function cellsById(context: ExecutorContext): Record<string, unknown> {
  return Object.fromEntries(context.columns.map((c) => [c.id, context.row.cells[c.key]]));
}

/** The route that applies to this row (the first whose condition is true), or undefined when none does. */
function planFor(config: SyncConfig, context: ExecutorContext): Plan | undefined {
  const base = {
    syncMode: config.syncMode ?? 'row',
    syncBehavior: config.syncBehavior ?? 'copy',
    listSourceColumnId: config.listSourceColumnId,
    listPath: config.listPath ?? DEFAULT_LIST_PATH,
    columnMappings: config.columnMappings ?? [],
  } satisfies Plan;
  if (!config.routes || config.routes.length === 0) return base;
  const resolve = resolverFor(context.columns as unknown as readonly RowColumn[]);
  const cells = cellsById(context);
  const route = config.routes.find(
    (r) =>
      r.condition === undefined || isEligible(prepareCondition(r.condition as RunCondition, resolve), cells),
  );
  if (!route) return undefined;
  return {
    syncMode: route.syncMode ?? base.syncMode,
    syncBehavior: route.syncBehavior ?? base.syncBehavior,
    listSourceColumnId: route.listSourceColumnId ?? base.listSourceColumnId,
    listPath: route.listPath ?? base.listPath,
    columnMappings: route.columnMappings ?? base.columnMappings,
  };
}

/** The value at a mapping's `path` inside `value` (the value itself without a path). */
function at(value: unknown, path: string | undefined): unknown {
  if (path === undefined) return value;
  const steps = parseJsonPath(path);
  return steps === undefined ? undefined : resolvePath(value, steps);
}

/** One destination row's cells; a source value that is absent leaves its destination cell out. */
function cellsOf(mappings: readonly Mapping[], row: Readonly<Record<string, unknown>>, item?: unknown) {
  const cells: Record<string, unknown> = {};
  for (const m of mappings) {
    const fromItem = m.sourceScope === 'item';
    const source = fromItem
      ? item !== null && typeof item === 'object' && !Array.isArray(item)
        ? (item as Record<string, unknown>)[m.itemKey!]
        : undefined
      : row[m.sourceKey!];
    const value = at(source, m.path);
    if (value !== undefined) cells[m.destKey] = value;
  }
  return cells;
}

/** The list a list-mode row expands: absent or empty is no rows; anything but an array is the row's error. */
function itemsOf(
  plan: Plan,
  context: ExecutorContext,
): { ok: true; items: unknown[] } | { ok: false; message: string } {
  const column = context.columns.find((c) => c.id === plan.listSourceColumnId);
  if (!column)
    return { ok: false, message: `list source column ${plan.listSourceColumnId} is not in this table` };
  const list = at(context.row.cells[column.key], plan.listPath);
  if (list === undefined || list === null) return { ok: true, items: [] };
  if (!Array.isArray(list)) return { ok: false, message: `${column.key} holds no array at ${plan.listPath}` };
  return { ok: true, items: list };
}

/**
 * sync_to_table: makes rows in the destination table from this row (row mode: one row) or from a list
 * inside one of its JSON cells (list mode: one row per item), through the rows API's own insert so the
 * destination's auto-run sees them. The batch key is the row's idempotency key, so a repeat after a
 * crash makes nothing twice. No matching route: the row is skipped (`no_route_matched`).
 */
export const syncToTableExecutor: Executor = async (context): Promise<ExecutionOutcome> => {
  const started = context.now();
  const config = context.column.config as SyncConfig;
  const plan = planFor(config, context);
  if (!plan) return failed('no_route_matched', 'no route of the column matches this row: nothing synced');
  let rows: { cells: Record<string, unknown> }[];
  if (plan.syncMode === 'row') {
    rows = [{ cells: cellsOf(plan.columnMappings, context.row.cells) }];
  } else {
    const list = itemsOf(plan, context);
    if (!list.ok) return failed('invalid_input', list.message);
    rows = list.items.map((item) => ({ cells: cellsOf(plan.columnMappings, context.row.cells, item) }));
  }
  const value: SyncValue = {
    tableId: config.destinationTableId,
    rowIds: [],
    syncBehavior: plan.syncBehavior,
    ...(plan.syncBehavior === 'link' ? { sourceRowId: context.row.id } : {}),
  };
  try {
    // The rows API takes MAX_BATCH rows a request: a longer list goes in several, each its own key.
    for (let i = 0; i < rows.length; i += MAX_BATCH) {
      const batchKey = i === 0 ? context.idempotencyKey : `${context.idempotencyKey}:${i / MAX_BATCH}`;
      const chunk = rows.slice(i, i + MAX_BATCH);
      const { rowIds } = await context.rows.insert({
        tableId: config.destinationTableId,
        rows: chunk,
        batchKey,
      });
      value.rowIds.push(...rowIds);
    }
  } catch (error) {
    // The destination refused the rows (gone, a cell of the wrong type): this row's error, not a crash.
    // A 5xx is the service's own trouble: thrown, so the worker tries the item again.
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    const fields = (error.extra.errors ?? []).map((e) => `${e.path}: ${e.message}`);
    const detail = [error.message, ...fields].join('; ');
    const meta = { durationMs: since(started, context.now()), attempts: 1 };
    return failed(
      'destination_rejected',
      `table ${config.destinationTableId} refused the rows: ${detail}`,
      meta,
    );
  }
  return succeeded(value, { durationMs: since(started, context.now()), attempts: 1 });
};
