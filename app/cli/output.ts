import type { Command } from 'commander';
import type { GlobalOptions } from './http.ts';

/**
 * Characters that would act on a terminal rather than show: the C0 controls (ESC starts escape
 * sequences, BEL rings), DEL, the C1 controls (U+009B is a one-character CSI), the line and paragraph
 * separators, and the bidirectional formatting characters (U+202E turns the rest of a line around).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from the service as it may be printed: every control character written as `\uXXXX`, so that a
 * name cannot move the cursor, retitle the window or reorder what follows. `keep` lists the controls
 * our own formatting puts there (the line breaks between lines). Every print of server data goes
 * through here; JSON stays valid JSON, since `\uXXXX` is how JSON escapes a character.
 */
export function escapeControls(text: string, keep = ''): string {
  return text.replace(CONTROLS, (c) =>
    keep.includes(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** True when the user asked for JSON (`--json`): scripts get the API's answer as it is. */
export function wantsJson(command: Command): boolean {
  return Boolean(command.optsWithGlobals<GlobalOptions>().json);
}

/** One or more lines of text for the terminal, each control character of server data escaped. */
export const printLines = (text: string): void => {
  process.stdout.write(`${escapeControls(text, '\n')}\n`);
};

export function printJson(value: unknown, out: Pick<NodeJS.WriteStream, 'write'> = process.stdout): void {
  out.write(`${escapeControls(JSON.stringify(value, null, 2), '\n')}\n`);
}

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
}

/** One value as a table cell or a record's value: on one line, its controls escaped. */
function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return escapeControls(value.join(','));
  if (value instanceof Date) return value.toISOString();
  return escapeControls(String(value));
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

/** Prints `value` as JSON under --json, else the human rendering; either way escaped (on `out`). */
export function emit(
  command: Command,
  value: unknown,
  human: () => string,
  out: Pick<NodeJS.WriteStream, 'write'> = process.stdout,
): void {
  if (wantsJson(command)) printJson(value, out);
  else out.write(`${escapeControls(human(), '\n')}\n`);
}
