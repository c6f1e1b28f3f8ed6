import { loadavg } from 'node:os';
import type { BenchServer } from './postgres.ts';
import { markdownTable, measuredOn, textTable, verdict } from './report.ts';
import type { LoadSummary } from './rounds.ts';
import { cpuText, type ImportPass } from './rows-import.ts';
import { LIST_SORT } from './rows-workload.ts';

/** What bench/rows.ts measured, and the knobs its prose names. */
export interface RowsResults {
  settings: {
    rows: number;
    batch: number;
    seconds: number;
    rounds: number;
    connections: number;
    estimateConcurrency: number;
  };
  imports: ImportPass[];
  list: LoadSummary[];
  estimate: LoadSummary[];
}

type Table = [headers: string[], rows: string[][]];

/** What BENCH_IMPORT_ONLY=1 prints: each pass's rates and CPU, and the load average. */
export function importOnlyText(imports: ImportPass[], loadAtStart: string): string {
  return [
    imports
      .map(
        (i) =>
          `${i.inFlight} in flight: API ${Math.round(i.api)} rows/s, floor ${Math.round(i.floor)} rows/s ` +
          `(${(i.api / i.floor).toFixed(2)}x); CPU ms a batch (this process / PostgreSQL): ` +
          `API ${cpuText(i.apiCpu)}, floor ${cpuText(i.floorCpu)}`,
      )
      .join('\n'),
    `load average ${loadAtStart} at the start, ${loadavg()[0]!.toFixed(1)} at the end`,
  ].join('\n');
}

function importTable(r: RowsResults): Table {
  return [
    [
      `import ${r.settings.rows.toLocaleString('en-US')} rows, batches of ${r.settings.batch}`,
      ...r.imports.map((i) => `rows/s, ${i.inFlight} in flight`),
    ],
    [
      ['POST .../rows until every row is readable (API)', ...r.imports.map((i) => String(Math.round(i.api)))],
      [
        'plain INSERTs: append-only table + read-model table',
        ...r.imports.map((i) => String(Math.round(i.floor))),
      ],
    ],
  ];
}

function cpuTable(r: RowsResults): Table {
  return [
    ['CPU ms a batch: this process / PostgreSQL', ...r.imports.map((i) => `${i.inFlight} in flight`)],
    [
      ['API', ...r.imports.map((i) => cpuText(i.apiCpu))],
      ['plain INSERTs', ...r.imports.map((i) => cpuText(i.floorCpu))],
    ],
  ];
}

function loadTable(what: string, sides: LoadSummary[]): Table {
  return [
    [what, 'req/s (median)', 'p50 ms', 'p99 ms'],
    sides.map((s) => [s.name, s.rps.toFixed(1), s.p50.toFixed(0), s.p99.toFixed(0)]),
  ];
}

/** A read's part of the section: what was measured, its table, the API / bare verdict, what limits it. */
function readPart(what: string, table: Table, ratio: string, limits: string): string[] {
  return [what, '', markdownTable(...table), '', `API / bare: **${ratio}**.`, '', limits];
}

function verdicts(r: RowsResults) {
  return {
    import: r.imports.map((i) => `${i.inFlight} in flight ${verdict(i.api / i.floor, 0.5)}`).join('; '),
    list: verdict(r.list[0]!.rps / r.list[1]!.rps, 0.8),
    estimate: verdict(r.estimate[0]!.rps / r.estimate[1]!.rps, 0.5),
  };
}

/** What the terminal shows. */
export function rowsText(r: RowsResults): string {
  const v = verdicts(r);
  return [
    textTable(...importTable(r)),
    textTable(...cpuTable(r)),
    `API / floor: ${v.import}`,
    textTable(...loadTable('list 100 of the rows, 10-rule filter, sort', r.list)),
    `API / bare: ${v.list}`,
    textTable(...loadTable('estimate over the rows', r.estimate)),
    `API / bare: ${v.estimate}`,
  ].join('\n\n');
}

/** The body of the `## Rows` section of docs/benchmarks.md. */
export function rowsMarkdown(r: RowsResults, server: BenchServer, loadAtStart: string): string {
  const { settings } = r;
  const v = verdicts(r);
  return [
    measuredOn(server, loadAtStart),
    '',
    `**Import.** ${settings.rows.toLocaleString('en-US')} rows of 10 columns (text, email, number, boolean, date, url, json), ` +
      `${settings.batch} a request, one request at a time and four at a time (each pass into a table of its own), ` +
      'timed until every row is readable (each request ' +
      'answers once the rows read model shows its rows). The floor writes the same batches from this process with ' +
      'plain INSERTs (one transaction per batch) into an append-only table and a read-model table of the same ' +
      'PostgreSQL: no HTTP, no validation, no event store. For scale, the best-known hosted table API accepts ' +
      '10 records a request at 5 requests a second: 50 rows/s.',
    '',
    markdownTable(...importTable(r)),
    '',
    markdownTable(...cpuTable(r)),
    '',
    `API / floor: **${v.import}**.`,
    '',
    'What limits it: a request parses the 1,000 rows (HTTP, the body schema) and checks each value ' +
      "against its column's type (one check made once per data type), appends them as one event of " +
      "about 300 KB (its schema checks the rows' shape, not each cell again) and waits until the rows " +
      "read model has them. The read model's runner does not read the event's data back (this process " +
      'kept it from its append), and it copies an insert batch that no other event of its transaction ' +
      "touches from the log's table into the read model in one INSERT ... SELECT on the server " +
      '(jsonb_to_recordset, no JSON text), so the rows cross the socket to PostgreSQL once, for the ' +
      'append. What remains per batch: in this process the JSON parse of the body, the cell checks, ' +
      'the JSON of the event and of the answer (which carries the 1,000 rows back) and garbage ' +
      'collection; in PostgreSQL the append (a 300 KB jsonb, compressed with pglz where lz4 is ' +
      'missing, as on the embedded server) and the copy. With four requests in flight the work in ' +
      'this process (about 35 ms of CPU a batch) is done one batch after another on one thread, and the ' +
      "read model applies its batches one transaction at a time, while the floor's INSERTs run side by " +
      "side in PostgreSQL: the service's rate barely grows with more in flight, the floor's triples. " +
      "The CPU table counts this process (the service and the benchmark's client, which " +
      'run in one process) and the PostgreSQL server, per batch of 1,000.',
    '',
    ...readPart(
      `**List.** GET .../rows?filter=…&sort=${LIST_SORT} (10 rules, AND; 100 a page) over those rows at ` +
        `${settings.connections} connections (autocannon), ${settings.rounds} alternating rounds of ${settings.seconds} s; ` +
        'medians. The bare route is Fastify running the same filter written by hand (typed casts, no missing-value ' +
        'or type guards) on the same pool, rows mapped by the same function; the answers are checked equal first.',
      loadTable('list', r.list),
      v.list,
      'What limits it: both sides read every row of the table (there is no index on cells: a case-insensitive ' +
        'test could not use one) and sort the matches, so the numbers are PostgreSQL scanning 100,000 jsonb ' +
        'documents on 2 cores, 16 at a time. The API adds the key check, the columns lookup and its generated SQL ' +
        '(parameters instead of literals, a COALESCE per rule for the missing-value policy).',
    ),
    '',
    ...readPart(
      `**Estimate.** POST .../estimate (scope all) of a column whose run condition has 51 nodes (10 any-groups ` +
        `of 4 leaves under one all), ${settings.estimateConcurrency} callers in a closed loop; the bare route ` +
        'runs the hand-written count(*) of the same rows (the counts are checked equal first).',
      loadTable('estimate', r.estimate),
      v.estimate,
      'What limits it: the same scan of every row; the API counts three things at once (candidates, filled ' +
        'cells, eligible rows) and reads the balance in the same statement.',
    ),
  ].join('\n');
}
