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
  BENCH_EVENT_TYPE,
  type BenchEventData,
  benchEventData,
  benchStream,
} from './lib/bench-event.ts';
import { fillLog, type PageReader, readWhileWriting, readWholeLog } from './lib/log-reading.ts';
import { emit, peerConfig } from './lib/peer-protocol.ts';
import { measureLoad } from './lib/timing.ts';

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

async function main(): Promise<void> {
  const { settings, appendUrl, readUrl } = peerConfig();

  const appendSide = await openPeer(appendUrl, settings.poolSize);
  try {
    for (const scenario of APPEND_SCENARIOS) {
      await appendSide.pool.query('CHECKPOINT').catch(() => {});
      const result = await measureLoad({
        concurrency: scenario.concurrency,
        seconds: settings.seconds,
        warmupSeconds: settings.warmupSeconds,
        op: async (writer, seq) => {
          const stream = benchStream(`peer_${scenario.id}`, writer, seq);
          await appendSide.store.appendToStream(stream, events(writer, seq, scenario.batch));
          return scenario.batch;
        },
      });
      emit({ kind: 'append', scenario: scenario.id, result });
    }
  } finally {
    await appendSide.close();
  }

  const readSide = await openPeer(readUrl, settings.poolSize);
  try {
    const { read } = settings;
    const filling = fillLog({
      total: read.events,
      writers: read.writers,
      batch: read.batch,
      append: async (writer, seq, count) => {
        await readSide.store.appendToStream(
          benchStream('peer_fill', writer, seq),
          events(writer, seq, count),
        );
      },
    });
    const live = await readWhileWriting(readSide.reader(read.pageSize), filling);
    const filled = await filling;
    emit({ kind: 'fill', written: filled.written, seconds: filled.seconds });
    emit({ kind: 'read', mode: 'live', result: live });
    emit({ kind: 'read', mode: 'full', result: await readWholeLog(readSide.reader(read.pageSize)) });
  } finally {
    await readSide.close();
  }
}

main().catch((error) => {
  emit({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
  process.exitCode = 1;
});
