import { type HttpLoad, median } from './bench-app.ts';

/**
 * Runs `rounds` rounds of a comparison: each round measures every side once, in the order given in
 * even rounds and reversed in odd ones, so that slow drift on a shared machine hits each side alike.
 */
export async function alternatingRounds<S>(
  sides: readonly S[],
  rounds: number,
  measure: (side: S, round: number) => Promise<void>,
): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 ? [...sides].reverse() : sides) await measure(side, round);
  }
}

/** One side of a comparison over its rounds: the median of each figure, taken apart. */
export interface LoadSummary extends HttpLoad {
  name: string;
}

/** The medians of one side's rounds: requests a second, p50 and p99 latency. */
export function summariseRounds(name: string, rounds: readonly HttpLoad[]): LoadSummary {
  return {
    name,
    rps: median(rounds.map((r) => r.rps)),
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
  };
}
