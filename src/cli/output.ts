import type { Command } from 'commander';
import type { GlobalOptions } from './http.ts';

/** True when the user asked for JSON (`--json`): scripts get the API's answer as it is. */
export function wantsJson(command: Command): boolean {
  return Boolean(command.optsWithGlobals<GlobalOptions>().json);
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.join(',');
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/** A plain aligned table (no colours, no borders) that reads well and greps well. */
export function formatTable<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  const cells = rows.map((row) => columns.map((c) => cell(c.value(row)).replace(/\s+/g, ' ')));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n');
}

/** Label/value pairs, one per line, labels aligned. */
export function formatRecord(pairs: readonly [string, unknown][]): string {
  const width = Math.max(...pairs.map(([label]) => label.length));
  return pairs.map(([label, value]) => `${`${label}:`.padEnd(width + 1)}  ${cell(value)}`).join('\n');
}

/** Prints `value` as JSON under --json, else the human rendering. */
export function emit(command: Command, value: unknown, human: () => string): void {
  if (wantsJson(command)) printJson(value);
  else process.stdout.write(`${human()}\n`);
}
