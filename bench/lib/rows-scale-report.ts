/**
 * The report of `bench:rows-scale`: its growth table (each figure beside its physical limit) and the
 * issue's targets, each said met or not with its numbers (never asserted).
 */
import type { BenchServer } from './postgres.ts';
import { markdownTable, measuredOn, textTable } from './report.ts';
import type { SchemaChange, SchemaChanges } from './rows-scale-schema.ts';

/** What limits the API against its physical limit (measured apart; see the section it writes). */
const LIMITS = [
  "What limits it: each page reads its rows from an index whatever the table's size. The limit",
  "holds the same data as the API's rows (the row's times as ISO text and its cells' statuses as",
  'the API shows them, the cheapest form to send) with as many indexes (22), and the first answers',
  'of both must list the same rows: until 2026-11-28 05:00 it held only the cells, and the 50th',
  "page's limit read no row at all (it looked for the score on the row instead of in its cells, and",
  'left out the rows without a score), which made 0.5 ms look like the cost of that page. What',
  'still separates a page from its limit, measured apart at 20,000 rows: the floor (the row above:',
  "the key check, the access hook and HTTP, 0.1-0.2 ms over a bare route's SELECT 1); the page",
  "statement, 0.8 ms against 0.55 for its bare keyset (the byte bound's running window and the",
  "check of the cached columns, 0.06-0.1 ms, included); and the rows' JSON, 0.3 ms: jsonb's text of",
  'the cells parsed, keyed by column key and written again in the process (having PostgreSQL build',
  "each row's JSON instead cost 0.5 ms more). The ranges read their 200 matching rows wherever the",
  'heap has them, so both they and their limits grow from 10,000 to 1,000,000 rows (the limit a',
  "little more). The estimate counts with the evaluator's SQL on the rows its key conditions find",
  '(a city among 8 and a number above half), where the limit counts typed columns; a count of every',
  'row of a table is the one the read model keeps. A run over more than 10,000 rows is started from',
  'a count and selects its rows as it goes, so its start does not read the ids the limit reads. A',
  "deleted column's cells are taken out of its rows by a worker, 1,000 rows a statement that skips",
  "rows being written, so reads and writes go on throughout; a created column's indexes are built",
  'CONCURRENTLY (the column made again here is empty in the rows already there: its build indexes',
  'their missing values, faster than a column full of text would be).',
].join(' ');

/** The floor's row: not a page, and no target; what every figure above it pays at least. */
export const FLOOR = 'floor: GET /api/tables/{id} (limit: a bare SELECT 1)';

export interface ReportSettings {
  samples: number;
  runWorkSeconds: number;
}

export interface Figure {
  p50: number;
  p99: number;
}
export interface Measure {
  name: string;
  api: Figure;
  limit: Figure;
}

export interface SizeResult {
  size: number;
  measures: Measure[];
  /** The API's floor: a request that reads one row, beside a bare route's SELECT 1 (not a target). */
  floor: Measure;
  importApi: number;
  importPlain: number;
  estimate: Measure;
  schema?: SchemaChanges;
  run?: {
    startMs: number;
    limitMs: number;
    rssBeforeMb: number;
    rssPeakMb: number;
    rows: number;
    /** Times GET /api/runs/{id} answered 404 (the runs read model behind the start). */
    hidden: number;
    /** Rows with a result after BENCH_SCALE_RUN_WORK_S of work. */
    worked: number;
    /** Seconds from the start until the stopped run had ended; undefined: not within the wait. */
    endedS?: number;
  };
}

const schemaCell = (change: SchemaChange) =>
  `${change.seconds.toFixed(1)}; ${ms(change.reads.p50)} / ${ms(change.reads.max)}, ${ms(change.writes.p50)} / ${ms(change.writes.max)}`;

const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));

export function report(
  results: readonly SizeResult[],
  settings: ReportSettings,
  server: BenchServer,
  loadAtStart: string,
): { text: string; markdown: string } {
  const sizes = results.map((r) => r.size);
  const cell = (m: Measure) =>
    `${ms(m.api.p50)} / ${ms(m.api.p99)} (${ms(m.limit.p50)} / ${ms(m.limit.p99)})`;
  const names = results[0]?.measures.map((m) => m.name) ?? [];
  const headers = [
    'p50 / p99 ms (limit p50 / p99)',
    ...sizes.map((s) => `${s.toLocaleString('en-US')} rows`),
  ];
  const rows = [
    ...names.map((name, i) => [name, ...results.map((r) => cell(r.measures[i]!))]),
    [FLOOR, ...results.map((r) => cell(r.floor))],
    ['estimate, 3-rule condition (count)', ...results.map((r) => cell(r.estimate))],
    [
      'import, rows/s: API (plain INSERTs, same indexes)',
      ...results.map(
        (r) =>
          `${Math.round(r.importApi)} (${Math.round(r.importPlain)}): ${(r.importApi / r.importPlain).toFixed(2)}x`,
      ),
    ],
    [
      'run start over every row, ms (limit: read the ids)',
      ...results.map((r) => (r.run ? `${ms(r.run.startMs)} (${ms(r.run.limitMs)})` : 'n/a')),
    ],
    [
      `rows done in ${settings.runWorkSeconds} s of the run; GET /api/runs/{id} 404s; ended after, s`,
      ...results.map((r) =>
        r.run
          ? `${r.run.worked}; ${r.run.hidden}; ${r.run.endedS === undefined ? 'not ended' : r.run.endedS.toFixed(0)}`
          : 'n/a',
      ),
    ],
    ...(['deleted', 'created'] as const).map((which) => [
      `column ${which === 'deleted' ? 'deleted (indexes, cells)' : 'created (indexes)'}: done after s; read p50 / max, PATCH p50 / max ms`,
      ...results.map((r) => (r.schema ? schemaCell(r.schema[which]) : 'n/a')),
    ]),
    [
      'RSS before -> high-water during the run, MB',
      ...results.map((r) => (r.run ? `${r.run.rssBeforeMb} -> ${r.run.rssPeakMb}` : 'n/a')),
    ],
  ];
  const targets = checkTargets(results);
  const markdown = [
    measuredOn(server, loadAtStart),
    '',
    `One table of 10 columns grown through the API (POST .../rows, batches of 1,000, one at a time) to each size; at each size every figure is ${settings.samples} requests one at a time (the estimate ${Math.max(3, Math.round(settings.samples / 4))}), after 3 unmeasured. Beside each figure, in brackets, the physical limit measured in the same run: the same data in a plain PostgreSQL table (the cells in typed columns, each row's times and its cells' statuses as the API shows them) with the index that query needs (each column ascending and descending, text case-folded), hand-written SQL through a bare Fastify route of the same process. The API's request and its limit's alternate, one after the other, and the first answers of both must list the same rows in the same order. The run is of a column with no condition (sync_to_table: each row's cells copied into a row of another table) over every row, worked for ${settings.runWorkSeconds} s (its progress read every half second), then stopped; RSS is this process's (the service, its workers and the client), sampled from before the start until the run has ended.`,
    '',
    markdownTable(headers, rows),
    '',
    ...targets,
    '',
    LIMITS,
  ].join('\n');
  return { text: [textTable(headers, rows), '', ...targets].join('\n'), markdown };
}

/** The issue's targets, each said met or not with its numbers (never asserted). */
function checkTargets(results: readonly SizeResult[]): string[] {
  const largest = results.at(-1);
  const smallest = results[0];
  if (!largest || !smallest) return [];
  const lines: string[] = [`Targets at ${largest.size.toLocaleString('en-US')} rows:`];
  const pageFails = largest.measures.filter((m) => m.api.p50 >= 25 || m.api.p99 >= 100);
  lines.push(
    `- every page p50 < 25 ms and p99 < 100 ms: ${pageFails.length === 0 ? 'met' : `NOT met by ${pageFails.map((m) => `${m.name} (${m.api.p50.toFixed(1)} / ${m.api.p99.toFixed(1)})`).join(', ')}`}`,
  );
  const growth = largest.measures.filter((m, i) => m.api.p50 > 2 * smallest.measures[i]!.api.p50);
  lines.push(
    `- no page more than 2x its figure at ${smallest.size.toLocaleString('en-US')} rows (p50): ${growth.length === 0 ? 'met' : `NOT met by ${growth.map((m) => `${m.name} (${m.api.p50.toFixed(1)} against ${smallest.measures[largest.measures.indexOf(m)]!.api.p50.toFixed(1)})`).join(', ')}`}`,
  );
  const slow = largest.measures.filter((m) => m.limit.p50 / m.api.p50 < 0.5);
  lines.push(
    `- every page at least 0.5x its limit (p50): ${slow.length === 0 ? 'met' : `NOT met by ${slow.map((m) => `${m.name} (${(m.limit.p50 / m.api.p50).toFixed(2)}x)`).join(', ')}`}`,
  );
  if (largest.schema) {
    const { deleted, created } = largest.schema;
    const longest = (which: 'reads' | 'writes') =>
      Math.max(deleted[which].max, created[which].max).toFixed(0);
    lines.push(
      `- schema changes online: a column deleted (${deleted.seconds.toFixed(1)} s) and created (${created.seconds.toFixed(1)} s) while ${deleted.reads.count + created.reads.count} page reads and as many PATCHes went on; the longest read took ${longest('reads')} ms, the longest PATCH ${longest('writes')} ms`,
    );
  }
  const ratio = largest.importApi / largest.importPlain;
  lines.push(
    `- import at least 0.5x plain INSERTs with the same indexes: ${ratio.toFixed(2)}x, ${ratio >= 0.5 ? 'met' : 'NOT met'}`,
  );
  lines.push(
    `- estimate under 1 s: p50 ${largest.estimate.api.p50.toFixed(0)} ms, ${largest.estimate.api.p50 < 1000 ? 'met' : 'NOT met'}`,
  );
  if (largest.run)
    lines.push(
      `- run start within a second: ${largest.run.startMs.toFixed(0)} ms, ${largest.run.startMs < 1000 ? 'met' : 'NOT met'}; RSS growth under 200 MB: ${largest.run.rssPeakMb - largest.run.rssBeforeMb} MB, ${largest.run.rssPeakMb - largest.run.rssBeforeMb < 200 ? 'met' : 'NOT met'}`,
    );
  return lines;
}
