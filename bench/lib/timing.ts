import { performance } from 'node:perf_hooks';
import { SMOKE } from './smoke.ts';

export interface Measurement {
  /** Calls completed inside the measured window. */
  ops: number;
  /** What the calls did, e.g. events appended (a batch of 100 counts 100). */
  units: number;
  seconds: number;
  opsPerSec: number;
  unitsPerSec: number;
  p50Ms: number;
  p99Ms: number;
}

export interface LoadOptions {
  concurrency: number;
  seconds: number;
  /** Run the same load unmeasured first: connections open, plans cached, JIT warm. */
  warmupSeconds?: number;
  /**
   * One call; returns how many units it did (1 when it returns nothing). `seq` counts this worker's
   * calls across warm-up and measurement, so a worker can derive stream names from it.
   */
  op: (worker: number, seq: number) => Promise<number | undefined>;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

/**
 * A closed loop: `concurrency` workers each issue the next call as soon as the last returns, until the
 * deadline. The window ends when the last in-flight call returns, so every counted call is inside it.
 */
export async function measureLoad(options: LoadOptions): Promise<Measurement> {
  const seqs = new Array<number>(options.concurrency).fill(0);
  const phase = async (seconds: number, latencies?: number[]) => {
    let units = 0;
    let ops = 0;
    const start = performance.now();
    const deadline = start + seconds * 1000;
    await Promise.all(
      seqs.map(async (_, worker) => {
        while (performance.now() < deadline) {
          const began = performance.now();
          const did = await options.op(worker, seqs[worker]!++);
          latencies?.push(performance.now() - began);
          units += did ?? 1;
          ops++;
        }
      }),
    );
    return { ops, units, seconds: (performance.now() - start) / 1000 };
  };
  if (options.warmupSeconds) await phase(options.warmupSeconds);
  const latencies: number[] = [];
  const { ops, units, seconds } = await phase(options.seconds, latencies);
  latencies.sort((a, b) => a - b);
  return {
    ops,
    units,
    seconds,
    opsPerSec: ops / seconds,
    unitsPerSec: units / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

/** Runs `fn` once and returns its result with the wall time it took. */
export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number }> {
  const start = performance.now();
  const value = await fn();
  return { value, seconds: (performance.now() - start) / 1000 };
}

/** 12345.6 -> "12,346"; small rates keep one decimal. */
export function formatRate(perSec: number | undefined): string {
  if (perSec === undefined || !Number.isFinite(perSec)) return 'n/a';
  return perSec >= 100
    ? Math.round(perSec).toLocaleString('en-US')
    : perSec.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

export function formatRatio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !(b > 0)) return 'n/a';
  return `${(a / b).toFixed(2)}x`;
}

/**
 * A positive number from the environment (BENCH_SECONDS and friends), else the default: `smoke` in a
 * smoke run (BENCH_SMOKE=1, bench/lib/smoke.ts) when given, `fallback` otherwise.
 */
export function numberFromEnv(name: string, fallback: number, smoke?: number): number {
  const value = Number(process.env[name]);
  if (Number.isFinite(value) && value > 0) return value;
  return SMOKE && smoke !== undefined ? smoke : fallback;
}
