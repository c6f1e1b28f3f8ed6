/**
 * Event store benchmark (`npm run bench:eventstore`): appends and whole-log reads of our PostgreSQL
 * event store against raw SQL on the same database and against Emmett's PostgreSQL store (in its own
 * process), all on one PostgreSQL. Prints a table and rewrites the `## Event store` section of
 * docs/benchmarks.md. Knobs: BENCH_SECONDS (per append measurement), BENCH_ROUNDS, BENCH_READ_EVENTS;
 * BENCH_SMOKE=1 runs it on tiny sizes (bench/lib/smoke.ts).
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  APPEND_SCENARIOS,
  type AppendScenario,
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
import { fillLog, type ReadCount, readWhileWriting, readWholeLog } from './lib/log-reading.ts';
import { PeerProcess } from './lib/peer-protocol.ts';
import { type BenchServer, startBenchServer } from './lib/postgres.ts';
import { describeMachine, writeBenchmarkSection } from './lib/report.ts';
import { sized } from './lib/smoke.ts';
import { type Measurement, measureLoad, numberFromEnv } from './lib/timing.ts';

const SECTION = 'Event store';
const PEER_SCRIPT = fileURLToPath(new URL('./eventstore-peer.ts', import.meta.url));

const settings: EventStoreBenchSettings = {
  seconds: numberFromEnv('BENCH_SECONDS', 2.5, 0.1),
  rounds: numberFromEnv('BENCH_ROUNDS', 2, 1),
  warmupSeconds: sized(0.5, 0.05),
  poolSize: 20,
  read: {
    events: numberFromEnv('BENCH_READ_EVENTS', 100_000, 500),
    writers: 16,
    batch: 10,
    pageSize: sized(1000, 100),
  },
};

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The peer, or why it is missing: a failing peer leaves its columns empty instead of stopping the run. */
const peerState: { process?: PeerProcess; error?: string } = {};

async function askPeer<T>(ask: (peer: PeerProcess) => Promise<T>): Promise<T | undefined> {
  if (!peerState.process) return undefined;
  try {
    return await ask(peerState.process);
  } catch (error) {
    peerState.error = error instanceof Error ? error.message : String(error);
    log(`peer failed: ${peerState.error}`);
    peerState.process = undefined;
    return undefined;
  }
}

type System = 'raw' | 'ours' | 'peer';

async function measureOnce(system: System, scenario: AppendScenario, round: number, ours: Ours) {
  if (system === 'peer') {
    const messages = await askPeer((p) => p.request({ kind: 'append', scenario: scenario.id, round }));
    const reply = messages?.find((m) => m.kind === 'append');
    return reply?.kind === 'append' ? reply.result : undefined;
  }
  return measureLoad({
    concurrency: scenario.concurrency,
    seconds: settings.seconds,
    warmupSeconds: settings.warmupSeconds,
    op: async (writer, seq) => {
      if (system === 'raw') await ours.rawInsert(writer, seq, scenario.batch);
      else
        await ours.append(
          benchStream(`ours_${scenario.id}_r${round}`, writer, seq),
          writer,
          seq,
          scenario.batch,
        );
      return scenario.batch;
    },
  });
}

/**
 * Each scenario is measured for raw, ours and the peer back to back, in alternating order from round to
 * round, and each keeps its best round: on a shared machine noise only ever slows a measurement down.
 */
async function measureAppends(server: BenchServer, ours: Ours): Promise<AppendResult[]> {
  const best = new Map<string, Partial<Record<System, Measurement>>>();
  for (let round = 0; round < settings.rounds; round++) {
    const order: System[] = round % 2 === 0 ? ['raw', 'ours', 'peer'] : ['peer', 'ours', 'raw'];
    for (const scenario of APPEND_SCENARIOS) {
      const kept = best.get(scenario.id) ?? {};
      best.set(scenario.id, kept);
      for (const system of order) {
        await server.checkpoint();
        const m = await measureOnce(system, scenario, round, ours);
        if (m && m.unitsPerSec > (kept[system]?.unitsPerSec ?? -1)) kept[system] = m;
        log(`  round ${round + 1}, ${scenario.label}, ${system}: ${m ? Math.round(m.unitsPerSec) : 'n/a'}/s`);
      }
    }
  }
  return APPEND_SCENARIOS.map((scenario) => {
    const kept = best.get(scenario.id)!;
    return { scenario, raw: kept.raw!, ours: kept.ours!, peer: kept.peer };
  });
}

/**
 * Fills the log while two readers follow it, then reads it whole: one unmeasured pass each (caches, JIT),
 * then passes alternating raw and ours, keeping each one's fastest.
 */
async function measureReads(ours: Ours) {
  const { read } = settings;
  // The naive reader pages by position alone; give it the index such a design would have (the events
  // table's own key is (tx_id, position)). Made after the append measurements, so they do not pay for it.
  await ours.pool.query('CREATE INDEX IF NOT EXISTS bench_events_position ON events (position)');
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
  const passes = { ours: [] as ReadCount[], raw: [] as ReadCount[] };
  for (let pass = 0; pass < 3; pass++) {
    passes.raw.push(await readWholeLog(ours.rawReader(read.pageSize)));
    passes.ours.push(await readWholeLog(ours.reader(read.pageSize)));
  }
  const fastest = (xs: ReadCount[]) => xs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  return {
    written,
    live: { ours: liveOurs, raw: liveRaw },
    full: { ours: fastest(passes.ours), raw: fastest(passes.raw) },
  };
}

async function measurePeerReads(): Promise<{ written?: number; live?: ReadCount; full?: ReadCount }> {
  const messages = (await askPeer((p) => p.request({ kind: 'reads' }))) ?? [];
  const result: { written?: number; live?: ReadCount; full?: ReadCount } = {};
  for (const m of messages) {
    if (m.kind === 'fill') result.written = m.written;
    if (m.kind === 'read') result[m.mode] = m.result;
  }
  return result;
}

async function main(): Promise<void> {
  const loadAtStart = loadavg()[0]!;
  log('starting PostgreSQL...');
  const server = await startBenchServer();
  try {
    const oursDb = await server.createDatabase('ours', { migrate: true });
    const peerDb = await server.createDatabase('peer');
    const peerReadDb = await server.createDatabase('peer_read');
    log('starting the peer process...');
    peerState.process = await PeerProcess.start(PEER_SCRIPT, {
      settings,
      appendUrl: peerDb.url,
      readUrl: peerReadDb.url,
    }).catch((error: Error) => {
      peerState.error = error.message;
      return undefined;
    });

    log('appends: raw INSERT, ours and the peer, interleaved');
    const ours = await openOurs(oursDb.url, settings.poolSize);
    const appends = await measureAppends(server, ours).finally(() => ours.close());
    await oursDb.drop();

    log(`reads: ours and raw over ${settings.read.events} events`);
    await server.checkpoint();
    const oursReadDb = await server.createDatabase('ours_read', { migrate: true });
    const oursRead = await openOurs(oursReadDb.url, settings.poolSize);
    const reads = await measureReads(oursRead).finally(() => oursRead.close());
    await oursReadDb.drop();

    log(`reads: the peer over ${settings.read.events} events`);
    await server.checkpoint();
    const peerReads = await measurePeerReads();
    await peerState.process?.close();

    const results: EventStoreResults = {
      date: new Date().toISOString().slice(0, 10),
      load: [loadAtStart, loadavg()[0]!],
      machine: describeMachine(),
      postgres: `PostgreSQL ${server.version} (${server.origin === 'embedded' ? 'embedded, default settings' : 'DATABASE_URL'})`,
      eventBytes: benchEventSize(),
      settings,
      appends,
      written: { ours: reads.written, peer: peerReads.written },
      full: { ...reads.full, peer: peerReads.full } satisfies ReadResults,
      live: { ...reads.live, peer: peerReads.live } satisfies ReadResults,
      peerError: peerState.error,
    };
    console.log(`\n${renderText(results)}`);
    await writeBenchmarkSection(SECTION, renderMarkdown(results, EVENT_STORE_NOTES));
    if (peerState.error) process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

await main();
