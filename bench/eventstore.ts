/**
 * Event store benchmark (`npm run bench:eventstore`): appends and whole-log reads of our PostgreSQL
 * event store against raw SQL on the same database and against Emmett's PostgreSQL store (in its own
 * process), all on one PostgreSQL. Prints a table and rewrites the `## Event store` section of
 * docs/benchmarks.md. Knobs: BENCH_SECONDS (per append measurement), BENCH_READ_EVENTS.
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  APPEND_SCENARIOS,
  benchEventSize,
  benchStream,
  type EventStoreBenchSettings,
} from './lib/bench-event.ts';
import { EVENT_STORE_NOTES } from './lib/eventstore-notes.ts';
import { type Ours, openOurs } from './lib/eventstore-ours.ts';
import {
  type AppendResult,
  type EventStoreResults,
  type ReadResults,
  renderMarkdown,
  renderText,
} from './lib/eventstore-report.ts';
import { fillLog, readWhileWriting, readWholeLog } from './lib/log-reading.ts';
import { runPeer } from './lib/peer-protocol.ts';
import { type BenchServer, startBenchServer } from './lib/postgres.ts';
import { describeMachine, writeBenchmarkSection } from './lib/report.ts';
import { measureLoad } from './lib/timing.ts';

const SECTION = 'Event store';
const PEER_SCRIPT = fileURLToPath(new URL('./eventstore-peer.ts', import.meta.url));

function numberFromEnv(name: string, fallback: number): number {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const settings: EventStoreBenchSettings = {
  seconds: numberFromEnv('BENCH_SECONDS', 3),
  warmupSeconds: 0.5,
  poolSize: 20,
  read: { events: numberFromEnv('BENCH_READ_EVENTS', 100_000), writers: 16, batch: 10, pageSize: 1000 },
};

const log = (line: string) => process.stderr.write(`${line}\n`);

async function measureAppends(server: BenchServer, ours: Ours): Promise<AppendResult[]> {
  const results: AppendResult[] = [];
  for (const scenario of APPEND_SCENARIOS) {
    const load = (op: (writer: number, seq: number) => Promise<void>) =>
      measureLoad({
        concurrency: scenario.concurrency,
        seconds: settings.seconds,
        warmupSeconds: settings.warmupSeconds,
        op: async (writer, seq) => {
          await op(writer, seq);
          return scenario.batch;
        },
      });
    await server.checkpoint();
    const raw = await load((writer, seq) => ours.rawInsert(writer, seq, scenario.batch));
    await server.checkpoint();
    const mine = await load((writer, seq) =>
      ours.append(benchStream(`ours_${scenario.id}`, writer, seq), writer, seq, scenario.batch),
    );
    log(`  ${scenario.label}: raw ${Math.round(raw.unitsPerSec)}/s, ours ${Math.round(mine.unitsPerSec)}/s`);
    results.push({ scenario, raw, ours: mine });
  }
  return results;
}

/**
 * Fills the log while two readers follow it, then reads it whole: one unmeasured pass each (caches, JIT),
 * then passes alternating raw and ours, keeping each one's fastest so a burst of noise on a shared
 * machine does not decide the ratio.
 */
async function measureReads(ours: Ours) {
  const { read } = settings;
  const filling = fillLog({
    total: read.events,
    writers: read.writers,
    batch: read.batch,
    append: (writer, seq, count) => ours.append(benchStream('fill', writer, seq), writer, seq, count),
  });
  const [liveOurs, liveRaw] = await Promise.all([
    readWhileWriting(ours.reader(read.pageSize), filling),
    readWhileWriting(ours.rawReader(read.pageSize), filling),
  ]);
  const { written } = await filling;
  await ours.pool.query('VACUUM ANALYZE events');
  await readWholeLog(ours.rawReader(read.pageSize));
  await readWholeLog(ours.reader(read.pageSize));
  const passes = { ours: [] as ReadResults['ours'][], raw: [] as ReadResults['raw'][] };
  for (let pass = 0; pass < 3; pass++) {
    passes.raw.push(await readWholeLog(ours.rawReader(read.pageSize)));
    passes.ours.push(await readWholeLog(ours.reader(read.pageSize)));
  }
  const fastest = <T extends { seconds: number }>(xs: T[]) =>
    xs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  return {
    written,
    live: { ours: liveOurs, raw: liveRaw },
    full: { ours: fastest(passes.ours), raw: fastest(passes.raw) },
  };
}

async function main(): Promise<void> {
  const loadAtStart = loadavg()[0]!;
  log('starting PostgreSQL...');
  const server = await startBenchServer();
  try {
    const oursDb = await server.createDatabase('ours', { migrate: true });
    const oursReadDb = await server.createDatabase('ours_read', { migrate: true });
    const peerDb = await server.createDatabase('peer');
    const peerReadDb = await server.createDatabase('peer_read');

    log('appends: raw INSERT and ours');
    const ours = await openOurs(oursDb.url, settings.poolSize);
    const appends = await measureAppends(server, ours).finally(() => ours.close());
    await oursDb.drop();

    log(`reads: ours and raw over ${settings.read.events} events`);
    await server.checkpoint();
    const oursRead = await openOurs(oursReadDb.url, settings.poolSize);
    const reads = await measureReads(oursRead).finally(() => oursRead.close());
    await oursReadDb.drop();

    log('peer (own process): appends, then reads');
    await server.checkpoint();
    const peer = await runPeer(PEER_SCRIPT, { settings, appendUrl: peerDb.url, readUrl: peerReadDb.url });

    const results: EventStoreResults = {
      date: new Date().toISOString().slice(0, 10),
      load: [loadAtStart, loadavg()[0]!],
      machine: describeMachine(),
      postgres: `PostgreSQL ${server.version} (${server.origin === 'embedded' ? 'embedded, default settings' : 'DATABASE_URL'})`,
      eventBytes: benchEventSize(),
      settings,
      appends: appends.map((a) => ({ ...a, peer: peer.appends.get(a.scenario.id) })),
      written: { ours: reads.written, peer: peer.written },
      full: { ...reads.full, peer: peer.full },
      live: { ...reads.live, peer: peer.live },
      peerError: peer.error,
    };
    console.log(`\n${renderText(results)}`);
    await writeBenchmarkSection(SECTION, renderMarkdown(results, EVENT_STORE_NOTES));
    log(`\nwrote the "${SECTION}" section of docs/benchmarks.md`);
    if (peer.error) process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

await main();
