import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMOKE } from './smoke.ts';

export const BENCHMARKS_FILE = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));

const HEADER = `# Benchmarks

Measured by \`npm run bench\` (every benchmark) or \`npm run bench:<name>\` (one). Each benchmark owns one
\`##\` section below and rewrites only that section, so the numbers of different benchmarks may come from
different runs and machines: each section says when and where it was measured.
`;

/** A GitHub-flavoured markdown table; the first column is left-aligned, the others right-aligned. */
export function markdownTable(headers: string[], rows: string[][]): string {
  const escapeCell = (cell: string) => cell.replace(/\|/g, '\\|');
  const line = (cells: string[]) => `| ${cells.map(escapeCell).join(' | ')} |`;
  const align = headers.map((_, i) => (i === 0 ? ':---' : '---:'));
  return [line(headers), line(align), ...rows.map(line)].join('\n');
}

/** The same table for a terminal: padded columns, no markdown escapes. */
export function textTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Cores, CPU model, memory and Node version: what a reader needs to weigh the numbers. */
export function describeMachine(): string {
  const cpu = cpus();
  const model = cpu[0]?.model.trim() || 'unknown CPU';
  const memory = Math.round(totalmem() / 2 ** 30);
  return `${cpu.length} cores (${model}), ${memory} GiB RAM, Node ${process.version}, ${process.platform}/${process.arch}`;
}

/**
 * The first line of a section: the date, this machine, the PostgreSQL server, and the 1-minute load
 * average at the start (`loadAtStart`, as printed) and now.
 */
export function measuredOn(server: { version: string; origin: string }, loadAtStart: string): string {
  return `Measured ${new Date().toISOString().slice(0, 10)} on ${describeMachine()}, PostgreSQL ${server.version} (${server.origin}); 1-minute load average ${loadAtStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end.`;
}

/** A ratio against its target, as the reports print it: `0.83x (target >= 0.7x: met)`. */
export function verdict(ratio: number, target: number): string {
  return `${ratio.toFixed(2)}x (target >= ${target}x: ${ratio >= target ? 'met' : 'NOT met'})`;
}

/**
 * Where a benchmark's report goes: `BENCH_REPORT_FILE` when set, else docs/benchmarks.md, except in
 * a smoke run (BENCH_SMOKE=1), whose tiny numbers go nowhere unless BENCH_REPORT_FILE asks.
 */
export function reportFile(): string | undefined {
  if (process.env.BENCH_REPORT_FILE) return process.env.BENCH_REPORT_FILE;
  return SMOKE ? undefined : BENCHMARKS_FILE;
}

/**
 * Replaces the `## {name}` section of the report file (reportFile(), docs/benchmarks.md by default:
 * everything up to the next `## ` heading) with `body`, or appends the section when it is not there
 * yet. Other sections are left untouched, so every benchmark can own its own section. Creates the file
 * with a short header if missing. Says on stderr where it wrote, or that a smoke run wrote nothing.
 */
export async function writeBenchmarkSection(
  name: string,
  body: string,
  file: string | undefined = reportFile(),
): Promise<void> {
  if (file === undefined) {
    process.stderr.write(
      `smoke run: the "${name}" section is not written (BENCH_REPORT_FILE names a file for it)\n`,
    );
    return;
  }
  const existing = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return HEADER;
    throw error;
  });
  const section = `## ${name}\n\n${body.trim()}\n`;
  const lines = existing.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${name}`);
  let updated: string;
  if (start === -1) {
    updated = `${existing.trimEnd()}\n\n${section}`;
  } else {
    const next = lines.findIndex((l, i) => i > start && /^## /.test(l));
    const before = lines.slice(0, start).join('\n').trimEnd();
    const after = next === -1 ? '' : lines.slice(next).join('\n').trimEnd();
    updated = [before, section.trimEnd(), after].filter((part) => part !== '').join('\n\n') + '\n';
  }
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, updated.endsWith('\n') ? updated : `${updated}\n`);
  process.stderr.write(
    `wrote the "${name}" section of ${file === BENCHMARKS_FILE ? 'docs/benchmarks.md' : file}\n`,
  );
}
