/**
 * The event every event-store benchmark writes, shared by our side and the peer process so both
 * append the same bytes. No imports: the peer must not load our registry or pg settings.
 */
export const BENCH_EVENT_TYPE = 'BenchEventAppended';

// A type alias, not an interface: Emmett's Event wants data assignable to Record<string, unknown>.
export type BenchEventData = {
  writer: number;
  seq: number;
  title: string;
  body: string;
  tags: string[];
};

const BODY =
  'Columns of the research table were reordered and two units renamed after review; the change is ' +
  'recorded so that readers of the public table and the developer API see the same history. ' +
  'This sentence pads the payload to a realistic size for an edit event in this service. ';

/** About 500 bytes once serialised (checked by `benchEventSize`). */
export function benchEventData(writer: number, seq: number): BenchEventData {
  return {
    writer,
    seq,
    title: `Edit ${seq} by writer ${writer}`,
    body: BODY + BODY.slice(0, 120),
    tags: ['bench', `writer-${writer}`, `batch-${seq % 97}`],
  };
}

export function benchEventSize(): number {
  return Buffer.byteLength(JSON.stringify(benchEventData(15, 123456)));
}

/**
 * Stream names: each writer owns its streams (no two writers contend for one, so the peer's
 * unchecked appends never conflict) and moves to a new stream every 10 calls, so both the
 * "new stream" and the "existing stream" paths are exercised.
 */
export function benchStream(prefix: string, writer: number, seq: number): string {
  return `${prefix}-${writer}-${Math.floor(seq / 10)}`;
}

/** One append measurement: the same for ours, the raw INSERT and the peer. */
export interface AppendScenario {
  id: string;
  label: string;
  concurrency: number;
  /** Events per call. */
  batch: number;
}

export const APPEND_SCENARIOS: AppendScenario[] = [
  { id: 'single-c1', label: 'append 1 event/call, concurrency 1', concurrency: 1, batch: 1 },
  { id: 'single-c16', label: 'append 1 event/call, concurrency 16', concurrency: 16, batch: 1 },
  { id: 'batch100-c1', label: 'append 100 events/call, concurrency 1', concurrency: 1, batch: 100 },
];

/** The shared knobs of one run, passed to the peer process as they are. */
export interface EventStoreBenchSettings {
  seconds: number;
  /** Every append measurement is repeated this often (ours, raw and peer interleaved); the best counts. */
  rounds: number;
  warmupSeconds: number;
  /** Connections per pool: the same for ours, raw and the peer. */
  poolSize: number;
  read: {
    events: number;
    writers: number;
    /** Events per append while filling the log for the read tests. */
    batch: number;
    pageSize: number;
  };
}
