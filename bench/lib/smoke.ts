/**
 * `BENCH_SMOKE=1`: a benchmark runs every one of its phases on tiny sizes (rows, seconds, rounds) to
 * show that it still runs to the end, and measures nothing worth keeping: its report is written only
 * where `BENCH_REPORT_FILE` says, never into docs/benchmarks.md. `npm test` runs every `bench:*`
 * script so (test/e2e/kernel/bench-smoke.test.ts). A knob set in the environment still wins.
 */
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** `full` in a real run, `smoke` in a smoke run. */
export const sized = <T>(full: T, smoke: T): T => (SMOKE ? smoke : full);
