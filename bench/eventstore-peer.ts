/**
 * The peer side of the event-store benchmark: Emmett's PostgreSQL event store under the same load as
 * ours. Started by bench/eventstore.ts in its own process, because Emmett's database layer (dumbo)
 * replaces pg's bigint and json type parsers for every pool in the process.
 */
import { nodePostgresPool } from '@event-driven-io/dumbo';
import type { Event } from '@event-driven-io/emmett';
import { getPostgreSQLEventStore, readMessagesBatch } from '@event-driven-io/emmett-postgresql';
import pg from 'pg';
import {
  APPEND_SCENARIOS,
  type AppendScenario,
  BENCH_EVENT_TYPE,
  type BenchEventData,
  benchEventData,
  benchStream,
} from './lib/bench-event.ts';
import { fillLog, type PageReader, readWhileWriting, readWholeLog } from './lib/log-reading.ts';
import { type PeerConfig, type PeerMessage, servePeer } from './lib/peer-protocol.ts';
import { type Measurement, measureLoad } from './lib/timing.ts';

type BenchEvent = Event<typeof BENCH_EVENT_TYPE, BenchEventData>;

function events(writer: number, seq: number, count: number): BenchEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    type: BENCH_EVENT_TYPE,
    data: benchEventData(writer, seq * count + i),
  }));
}

/** Emmett on a pg pool of the same size as ours, its schema created before anything is timed. */
async function openPeer(url: string, poolSize: number) {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => {});
  const executor = nodePostgresPool({ connectionString: url, pool });
  const store = getPostgreSQLEventStore(url, { connectionOptions: { dumbo: executor } });
  await store.schema.migrate();
  return {
    store,
    pool,
    /** Emmett's own batch reader, the one its consumers poll `$all` with, paged by global position. */
    reader(pageSize: number): PageReader {
      let after = 0n;
      return async () => {
        const batch = await readMessagesBatch(executor.execute, { after, batchSize: pageSize });
        after = batch.currentGlobalPosition;
        return batch.messages.map((m) => String(m.metadata.messageId));
      };
    },
    async close() {
      await store.close();
      await pool.end();
    },
  };
}

type Peer = Awaited<ReturnType<typeof openPeer>>;

let config: PeerConfig;
let appendSide: Peer | undefined;

async function measureAppend(scenario: AppendScenario, round: number): Promise<Measurement> {
  const side = appendSide!;
  return measureLoad({
    concurrency: scenario.concurrency,
    seconds: config.settings.seconds,
    warmupSeconds: config.settings.warmupSeconds,
    op: async (writer, seq) => {
      const stream = benchStream(`peer_${scenario.id}_r${round}`, writer, seq);
      await side.store.appendToStream(stream, events(writer, seq, scenario.batch));
      return scenario.batch;
    },
  });
}

/** Fills the read database while following it, then reads it whole once (its reader is slow). */
async function measureReads(reply: (message: PeerMessage) => void): Promise<void> {
  const { read, poolSize } = config.settings;
  const side = await openPeer(config.readUrl, poolSize);
  try {
    const filling = fillLog({
      total: read.events,
      writers: read.writers,
      batch: read.batch,
      append: async (writer, seq, count) => {
        await side.store.appendToStream(benchStream('peer_fill', writer, seq), events(writer, seq, count));
      },
    });
    const live = await readWhileWriting(side.reader(read.pageSize), filling);
    const filled = await filling;
    reply({ kind: 'fill', written: filled.written, seconds: filled.seconds });
    reply({ kind: 'read', mode: 'live', result: live });
    reply({ kind: 'read', mode: 'full', result: await readWholeLog(side.reader(read.pageSize)) });
  } finally {
    await side.close();
  }
}

await servePeer({
  async open(given) {
    config = given;
    appendSide = await openPeer(config.appendUrl, config.settings.poolSize);
  },
  async handle(command, reply) {
    if (command.kind === 'reads') return measureReads(reply);
    const scenario = APPEND_SCENARIOS.find((s) => s.id === command.scenario);
    if (!scenario) throw new Error(`unknown scenario ${command.scenario}`);
    reply({ kind: 'append', scenario: scenario.id, result: await measureAppend(scenario, command.round) });
  },
  async close() {
    await appendSide?.close();
  },
});
