import type { Command } from 'commander';
import { jsonArgument } from './arguments.ts';
import { UsageError } from './errors.ts';

export interface ScopeOptions {
  filter?: string;
  rowIds?: string[];
  onlyEmpty?: boolean;
}

/** Which rows an estimate or a run takes: all, a FilterObject's, or the given ones. */
export const scopeOptions = (command: Command): Command =>
  command
    .option('--filter <json>', 'only the rows a FilterObject selects (inline JSON or @file.json)')
    .option('--row-ids <ids...>', 'only these rows')
    .option('--only-empty', 'skip rows whose cell of this column holds a value');

/** The body of POST .../estimate and .../run for those options. */
export function scopeBody(options: ScopeOptions): Record<string, unknown> {
  if (options.filter !== undefined && options.rowIds !== undefined) {
    throw new UsageError('give --filter or --row-ids, not both');
  }
  const scope = options.filter !== undefined ? 'filtered' : options.rowIds !== undefined ? 'selected' : 'all';
  const body: Record<string, unknown> = { scope, onlyEmpty: options.onlyEmpty ?? false };
  if (options.filter !== undefined) body.filter = jsonArgument(options.filter);
  if (options.rowIds !== undefined) body.rowIds = options.rowIds;
  return body;
}
