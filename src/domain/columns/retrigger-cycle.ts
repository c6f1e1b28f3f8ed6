import { AppError } from '../../errors.ts';
import { type Config, configRefs, type ProviderSpecs } from './config/index.ts';
import type { AutoRun, Column } from './fields.ts';
import { refersTo } from './references.ts';

/** A column as the auto-run rules see it. */
export interface TriggerColumn {
  id: string;
  key: string;
  autoRun: AutoRun;
  config: Config;
}

/**
 * The ids of the other columns a column reads (placeholders, mappings, sources, run condition), as
 * its provider's spec names them.
 */
export function columnsRead(
  column: TriggerColumn,
  columns: readonly TriggerColumn[],
  providers: ProviderSpecs,
): Set<string> {
  const read = new Set<string>();
  for (const ref of configRefs(column.config, providers)) {
    const named = columns.find((c) => refersTo(ref, c));
    if (named && named.id !== column.id) read.add(named.id);
  }
  return read;
}

/** A column whose cells a run writes: one with a provider (input columns change only by hand). */
const isComputed = (column: TriggerColumn) => typeof column.config.provider === 'string';

/**
 * A cycle of columns that would retrigger each other, as keys (`a`, `b`, `a`), or undefined. An edge
 * goes from a computed column to an `onSourceUpdate` column that reads it: a run writing the first
 * re-runs the second. A column's own output never retriggers it, so a column reading itself is no edge.
 */
export function retriggerCycle(
  columns: readonly TriggerColumn[],
  providers: ProviderSpecs,
): string[] | undefined {
  const byId = new Map(columns.map((c) => [c.id, c]));
  const next = new Map<string, string[]>(columns.map((c) => [c.id, []]));
  for (const reader of columns) {
    if (reader.autoRun !== 'onSourceUpdate') continue;
    for (const id of columnsRead(reader, columns, providers)) {
      if (isComputed(byId.get(id)!)) next.get(id)!.push(reader.id);
    }
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): string[] | undefined => {
    state.set(id, 'visiting');
    path.push(id);
    for (const to of next.get(id) ?? []) {
      if (state.get(to) === 'visiting') return [...path.slice(path.indexOf(to)), to];
      if (!state.has(to)) {
        const found = visit(to);
        if (found) return found;
      }
    }
    path.pop();
    state.set(id, 'done');
    return undefined;
  };
  for (const column of columns) {
    if (state.has(column.id)) continue;
    const cycle = visit(column.id);
    if (cycle) return cycle.map((id) => byId.get(id)!.key);
  }
  return undefined;
}

/** 400 when the table's columns, with `changed` as it would be, would retrigger each other. */
export function refuseRetriggerCycle(
  columns: readonly TriggerColumn[],
  changed: TriggerColumn,
  providers: ProviderSpecs,
): void {
  const after = [...columns.filter((c) => c.id !== changed.id), changed];
  const cycle = retriggerCycle(after, providers);
  if (!cycle) return;
  const path = changed.autoRun === 'onSourceUpdate' ? 'autoRun' : 'config';
  throw new AppError(
    'validation_failed',
    `These columns would re-run each other for ever on source updates: ${cycle.join(' -> ')}.`,
    {
      errors: [
        {
          path,
          message: `auto-run cycle ${cycle.join(' -> ')}: set autoRun of one of them to never or onInsert`,
        },
      ],
    },
  );
}

export const triggerColumn = ({ id, key, autoRun, config }: Column): TriggerColumn => ({
  id,
  key,
  autoRun,
  config,
});
