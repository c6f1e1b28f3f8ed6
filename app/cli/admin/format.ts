/** Padded columns for a terminal; the first column left-aligned, numbers right-aligned. */
export function textTable(headers: string[], rows: string[][], rightAligned: number[] = []): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (rightAligned.includes(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n');
}

export const formatCount = (n: number) => n.toLocaleString('en-US');

export function formatSeconds(seconds: number): string {
  if (seconds < 1) return seconds === 0 ? '0s' : '<1s';
  if (seconds < 120) return `${Math.round(seconds)}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  return `${Math.round(seconds / 3600)}h`;
}

/** JSON with bigints as strings and dates as ISO strings. */
export function toJson(value: unknown, indent = 2): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? String(v) : v), indent);
}
