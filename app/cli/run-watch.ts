import { createProgress, type Progress } from './admin/progress.ts';
import { escapeControls } from './output.ts';

/** What following a run reads of it. */
export interface WatchedRun {
  status: string;
  counts: { total: number; succeeded: number; failed: number; skipped: number };
  credits: unknown;
}

const FINAL = new Set(['succeeded', 'partially_succeeded', 'failed', 'stopped']);

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
