import { createProgress, type Progress } from './admin/progress.ts';
import { RunEndedError } from './errors.ts';
import { escapeControls } from './output.ts';

/** What following a run reads of it. */
export interface WatchedRun {
  id?: string;
  status: string;
  counts: { total: number; succeeded: number; failed: number; skipped: number };
  credits: unknown;
}

const FINAL = new Set(['succeeded', 'partially_succeeded', 'failed', 'stopped']);

/**
 * The exit code of `stk runs watch` and `stk columns run --watch` by how the run ended (documented in
 * docs/api-keys.md): 0 every row done, 3 no row succeeded, 4 some rows failed, 5 stopped before its
 * end. 1 stays an error of the command itself (the API, the network) and 2 a wrong command line.
 */
export const RUN_EXIT_CODES: Readonly<Record<string, number>> = {
  succeeded: 0,
  failed: 3,
  partially_succeeded: 4,
  stopped: 5,
};

/**
 * Nothing for a run that succeeded; otherwise the error to exit with: its code (RUN_EXIT_CODES) and a
 * line saying how the run ended and where to read why.
 */
export function runEndedError(run: WatchedRun): RunEndedError | undefined {
  const code = RUN_EXIT_CODES[run.status] ?? 1;
  if (code === 0) return undefined;
  const { total, succeeded, failed, skipped } = run.counts;
  const name = run.id ? `run ${run.id}` : 'the run';
  const rows = `${succeeded} of ${total} rows succeeded, ${failed} failed, ${skipped} skipped`;
  const why = failed > 0 && run.id ? ` (stk runs rows ${run.id} --status failed shows why)` : '';
  return new RunEndedError(`${name} ended ${run.status}: ${rows}${why}`, code);
}

/** Where a watch writes: the process's streams, or a test's. */
export interface WatchStreams {
  stdout: Pick<NodeJS.WriteStream, 'write' | 'isTTY'>;
  stderr: NodeJS.WriteStream;
}

/**
 * How a watch shows a run, decided by stdout, where its result goes: a person at a terminal gets a
 * progress bar (on stderr) and the run at the end; stdout piped or redirected (`| jq`, `> log`), or
 * `--json`, gets one JSON line per change, the last one the ended run. Deciding by stderr would put a
 * bar and a human record into `stk runs watch X | jq` whenever stderr is still the terminal.
 */
export function watchMode(stdout: { isTTY?: boolean }, json: boolean): 'bar' | 'lines' {
  return stdout.isTTY === true && !json ? 'bar' : 'lines';
}

export interface WatchOptions<R> {
  label: string;
  intervalMs: number;
  json: boolean;
  /** The ended run as a person reads it (bar mode only). */
  human: (run: R) => string;
  streams?: WatchStreams;
  /** The bar (default: createProgress on stderr). */
  progress?: (label: string) => Progress;
}

/**
 * Follows a run until it ends (`get` asks for it once), printing as `watchMode` decides, and answers
 * the ended run. In lines mode a line is written each time the status, counts or credits change.
 */
export async function followRun<R extends WatchedRun>(
  get: () => Promise<R>,
  options: WatchOptions<R>,
): Promise<R> {
  const { stdout, stderr } = options.streams ?? { stdout: process.stdout, stderr: process.stderr };
  const bar = watchMode(stdout, options.json) === 'bar';
  const progress = bar
    ? (options.progress ?? ((label) => createProgress(label, 'rows', stderr)))(options.label)
    : undefined;
  let last = '';
  for (;;) {
    const run = await get();
    const done = run.counts.succeeded + run.counts.failed + run.counts.skipped;
    if (progress) progress.update(done, run.counts.total);
    else {
      const state = JSON.stringify([run.status, run.counts, run.credits]);
      if (state !== last) stdout.write(`${escapeControls(JSON.stringify(run))}\n`);
      last = state;
    }
    if (FINAL.has(run.status)) {
      if (progress) {
        progress.stop();
        stdout.write(`${escapeControls(options.human(run), '\n')}\n`);
      }
      return run;
    }
    await new Promise((r) => setTimeout(r, options.intervalMs));
  }
}
