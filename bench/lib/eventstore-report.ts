import type { AppendScenario, EventStoreBenchSettings } from './bench-event.ts';
import type { ReadCount } from './log-reading.ts';
import { markdownTable, textTable } from './report.ts';
import { formatRate, formatRatio, type Measurement } from './timing.ts';

export interface AppendResult {
  scenario: AppendScenario;
  raw: Measurement;
  ours: Measurement;
  peer?: Measurement;
}

export interface ReadResults {
  ours: ReadCount;
  raw: ReadCount;
  peer?: ReadCount;
}

export interface EventStoreResults {
  date: string;
  /** One-minute load average when the run started and when it ended: other work on the machine. */
  load: [number, number];
  machine: string;
  postgres: string;
  eventBytes: number;
  settings: EventStoreBenchSettings;
  appends: AppendResult[];
  written: { ours: number; peer?: number };
  full: ReadResults;
  live: ReadResults;
  peerError?: string;
}

interface Table {
  headers: string[];
  rows: string[][];
}

function appendTable(r: EventStoreResults): Table {
  return {
    headers: [
      'append scenario (events/s)',
      'raw INSERT',
      'ours',
      'peer',
      'ours vs raw',
      'ours vs peer',
      'peer vs raw',
    ],
    rows: r.appends.map(({ scenario, raw, ours, peer }) => [
      scenario.label,
      formatRate(raw.unitsPerSec),
      formatRate(ours.unitsPerSec),
      formatRate(peer?.unitsPerSec),
      formatRatio(ours.unitsPerSec, raw.unitsPerSec),
      formatRatio(ours.unitsPerSec, peer?.unitsPerSec),
      formatRatio(peer?.unitsPerSec, raw.unitsPerSec),
    ]),
  };
}

function latencyTable(r: EventStoreResults): Table {
  const ms = (m: Measurement | undefined) => (m ? `${m.p50Ms.toFixed(2)} / ${m.p99Ms.toFixed(2)}` : 'n/a');
  return {
    headers: ['call latency p50 / p99 (ms)', 'raw INSERT', 'ours', 'peer'],
    rows: r.appends.map(({ scenario, raw, ours, peer }) => [scenario.label, ms(raw), ms(ours), ms(peer)]),
  };
}

const count = (n: number | undefined) => (n === undefined ? 'n/a' : n.toLocaleString('en-US'));

function readTable(r: EventStoreResults, mode: 'full' | 'live'): Table {
  const reads = r[mode];
  const row = (name: string, c: ReadCount | undefined, written: number | undefined): string[] => [
    name,
    mode === 'full' ? formatRate(c?.eventsPerSec) : c ? `${c.seconds.toFixed(1)} s` : 'n/a',
    ...(mode === 'full' ? [formatRatio(c?.eventsPerSec, reads.raw.eventsPerSec)] : []),
    ...(mode === 'full' ? [formatRatio(c?.eventsPerSec, reads.peer?.eventsPerSec)] : []),
    count(written),
    count(c?.returned),
    count(c?.distinct),
    count(c && written !== undefined ? written - c.distinct : undefined),
  ];
  const first =
    mode === 'full'
      ? ['read all, after the writers (events/s)', 'events/s', 'vs raw', 'vs peer']
      : ['read all, while the writers append', 'took'];
  return {
    headers: [...first, 'written', 'returned', 'distinct', 'missing'],
    rows: [
      row('ours: readAll, (tx_id, position) pages', reads.ours, r.written.ours),
      row('raw: WHERE position > $1 pages', reads.raw, r.written.ours),
      row('peer: readMessagesBatch pages', reads.peer, r.written.peer),
    ],
  };
}

export interface TargetCheck {
  name: string;
  ratio: number | undefined;
  target: number;
}

export function targetChecks(r: EventStoreResults): TargetCheck[] {
  const c16 = r.appends.find((a) => a.scenario.id === 'single-c16');
  const ratio = (a: number | undefined, b: number | undefined) =>
    a !== undefined && b !== undefined && b > 0 ? a / b : undefined;
  return [
    {
      name: 'ours vs peer, append at concurrency 16',
      ratio: ratio(c16?.ours.unitsPerSec, c16?.peer?.unitsPerSec),
      target: 1.2,
    },
    ...r.appends.map((a) => ({
      name: `ours vs raw INSERT, ${a.scenario.label}`,
      ratio: ratio(a.ours.unitsPerSec, a.raw.unitsPerSec),
      target: 0.6,
    })),
    {
      name: 'ours vs raw paging, full read',
      ratio: ratio(r.full.ours.eventsPerSec, r.full.raw.eventsPerSec),
      target: 0.7,
    },
  ];
}

function targetLines(r: EventStoreResults): string[] {
  return targetChecks(r).map((t) => {
    const verdict = t.ratio === undefined ? 'not measured' : t.ratio >= t.target ? 'met' : 'MISSED';
    const shown = t.ratio === undefined ? 'n/a' : `${t.ratio.toFixed(2)}x`;
    return `${t.name}: ${shown} (target >= ${t.target}x) ${verdict}`;
  });
}

function setup(r: EventStoreResults): string {
  const s = r.settings;
  return (
    `${s.seconds} s per append measurement after ${s.warmupSeconds} s of warm-up, the best of ${s.rounds} ` +
    `rounds (raw, ours and the peer measured back to back, order alternating), pools of ${s.poolSize} ` +
    `connections, ~${r.eventBytes}-byte JSON events. Reads: ${s.read.events.toLocaleString('en-US')} events ` +
    `written by ${s.read.writers} concurrent writers (${s.read.batch} events per append), read in pages of ` +
    `${s.read.pageSize}; ours and raw keep the fastest of three whole-log passes after a warm-up pass, the ` +
    `peer reads it once (a pass takes it tens of seconds). Raw appends are one autocommit INSERT per call into a table with an identity key ` +
    `and a jsonb column (the 100-event case inserts its rows with one INSERT ... SELECT unnest($1::jsonb[])). ` +
    `One-minute load average (this run's own processes included): ${r.load[0].toFixed(1)} at the start, ` +
    `${r.load[1].toFixed(1)} at the end.`
  );
}

/** What the terminal shows. */
export function renderText(r: EventStoreResults): string {
  const t = (table: Table) => textTable(table.headers, table.rows);
  return [
    `Event store benchmark, ${r.date}; ${r.machine}; ${r.postgres}`,
    setup(r),
    '',
    t(appendTable(r)),
    '',
    t(latencyTable(r)),
    '',
    t(readTable(r, 'full')),
    '',
    t(readTable(r, 'live')),
    '',
    ...targetLines(r),
    ...(r.peerError ? ['', `peer failed: ${r.peerError}`] : []),
  ].join('\n');
}

/** The body of the `## Event store` section of docs/benchmarks.md. */
export function renderMarkdown(r: EventStoreResults, notes: string[]): string {
  const t = (table: Table) => markdownTable(table.headers, table.rows);
  return [
    `Measured ${r.date} by \`npm run bench:eventstore\` on ${r.machine}; ${r.postgres}. ` +
      'Ours is `PostgresEventStore` (src/event-store/postgres.ts); raw is plain SQL on the same database; ' +
      "the peer is Emmett's PostgreSQL event store (`@event-driven-io/emmett-postgresql`) in its own " +
      'process on its own database of the same server.',
    setup(r),
    '### Appends',
    t(appendTable(r)),
    t(latencyTable(r)),
    '### Reading the whole log',
    t(readTable(r, 'full')),
    'The same log, read while the writers are still appending (a reader that keeps asking after an empty ' +
      'page, the way a projection catches up), until an empty page asked for after the last append:',
    t(readTable(r, 'live')),
    '### Targets (reported, not asserted)',
    targetLines(r)
      .map((l) => `- ${l}`)
      .join('\n'),
    ...(r.peerError ? [`The peer failed: ${r.peerError}`] : []),
    '### What limits each number',
    notes.map((n) => `- ${n}`).join('\n'),
  ].join('\n\n');
}
