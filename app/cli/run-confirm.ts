import { createInterface } from 'node:readline';
import { escapeControls } from './output.ts';

/** The streams a command reads and writes: the process's, or a test's. */
export interface CliStreams {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: Pick<NodeJS.WriteStream, 'write' | 'isTTY'>;
  stderr: NodeJS.WriteStream;
}

export const processStreams = (): CliStreams => ({
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
});

/** What POST .../estimate answers (queries/rows/estimate.ts). */
export interface RunEstimate {
  candidates: number;
  eligible: number;
  skippedByCondition: number;
  skippedNotEmpty: number;
  creditsPerRow: number;
  estimatedCredits: number;
  balance: number;
  sufficient: boolean;
}

/**
 * Whether `stk columns run` asks before it starts a run: only a person at a terminal can answer
 * (stdin a terminal, and stderr, where the question goes), and `--yes` answers for them. Without a
 * terminal (a script, CI, a pipe) it does not ask and starts the run, as every other command acts
 * at once: what a script asks for is what it meant (docs/api-keys.md).
 */
export function asksBeforeRunning(streams: Pick<CliStreams, 'stdin' | 'stderr'>, yes: boolean): boolean {
  return !yes && streams.stdin.isTTY === true && streams.stderr.isTTY === true;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * The estimate as the question before a run shows it: the rows it takes and what it leaves out, the
 * credits and the balance, and the rows whose cell already holds a value, which run again (and are
 * charged again) unless `--only-empty`. `rerun` is how many of the rows it takes hold a value (the
 * estimate without onlyEmpty less the one with it); undefined when `--only-empty` was given.
 */
export function describeEstimate(estimate: RunEstimate, rerun: number | undefined): string {
  const left = [
    estimate.skippedByCondition > 0 ? `${estimate.skippedByCondition} left out by the run condition` : '',
    estimate.skippedNotEmpty > 0 ? `${estimate.skippedNotEmpty} skipped as not empty (--only-empty)` : '',
  ].filter(Boolean);
  const lines = [
    `This run takes ${plural(estimate.eligible, 'row')} of the ${estimate.candidates} in scope` +
      (left.length > 0 ? ` (${left.join(', ')})` : '') +
      '.',
    `It costs up to ${plural(estimate.estimatedCredits, 'credit')} (${estimate.creditsPerRow} a row); ` +
      `the balance is ${estimate.balance}${estimate.sufficient ? '' : ', NOT enough'}.`,
  ];
  if (rerun !== undefined) {
    lines.push(
      rerun > 0
        ? `${plural(rerun, 'row')} of these already ${rerun === 1 ? 'holds' : 'hold'} a value and ` +
            `${rerun === 1 ? 'runs' : 'run'} again, charged again: --only-empty skips them.`
        : 'Rows whose cell already holds a value would run again: --only-empty skips them (none here).',
    );
  }
  return lines.join('\n');
}

/** Writes `question` on stderr and reads one line of stdin: true for `y` or `yes` (any case). */
export async function confirm(
  question: string,
  streams: Pick<CliStreams, 'stdin' | 'stderr'>,
): Promise<boolean> {
  const lines = createInterface({ input: streams.stdin, terminal: false });
  try {
    streams.stderr.write(question);
    const answer = await new Promise<string | undefined>((resolve) => {
      lines.once('line', resolve);
      lines.once('close', () => resolve(undefined));
    });
    return /^\s*y(es)?\s*$/i.test(answer ?? '');
  } finally {
    lines.close();
  }
}

/** The estimate, then the question, on stderr; true when the person answered yes. */
export async function confirmRun(
  estimate: RunEstimate,
  rerun: number | undefined,
  streams: Pick<CliStreams, 'stdin' | 'stderr'>,
): Promise<boolean> {
  streams.stderr.write(`${escapeControls(describeEstimate(estimate, rerun), '\n')}\n`);
  return confirm('Start the run? [y/N] ', streams);
}
