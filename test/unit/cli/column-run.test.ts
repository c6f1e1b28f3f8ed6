/**
 * Issue 34, item 9: `stk columns run` at a terminal shows the estimate (rows, credits, and that rows
 * holding a value run again unless --only-empty) and asks before it charges, unless --yes; without a
 * terminal it does not ask. A watched run that does not succeed exits with a code of its own (3
 * failed, 4 partially succeeded, 5 stopped). The streams and the API client are the test's.
 */
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CliError, RunEndedError } from '../../../app/cli/errors.ts';
import { asksBeforeRunning, type CliStreams, describeEstimate } from '../../../app/cli/run-confirm.ts';
import { RUN_EXIT_CODES, runEndedError } from '../../../app/cli/run-watch.ts';
import { type ColumnRunOptions, runColumn } from '../../../app/cli/verbs/runs.ts';

const test = suite('stk columns run: the estimate and a question at a terminal; exit codes of a watched run');

const ESTIMATE = {
  candidates: 5,
  eligible: 4,
  skippedByCondition: 1,
  skippedNotEmpty: 0,
  creditsPerRow: 1,
  estimatedCredits: 4,
  balance: 50,
  sufficient: true,
};

const run = (status: string, counts = { succeeded: 4, failed: 0, skipped: 0 }) => ({
  id: 'run_1',
  tableId: 'tbl_1',
  columnId: 'col_1',
  status,
  counts: { total: 4, queued: 0, running: 0, ...counts },
  credits: { reserved: 4, charged: counts.succeeded, refunded: 0 },
  createdAt: '2026-01-01T00:00:00.000Z',
  startedAt: null,
  finishedAt: null,
  error: null,
});

/** An API client that answers the estimate (3 of its 4 rows empty) and the run, and keeps each call. */
function fakeClient(ended = run('succeeded')) {
  const calls: { method: string; path: string; body?: unknown }[] = [];
  const client = {
    async post<T>(path: string, body?: unknown): Promise<T> {
      calls.push({ method: 'POST', path, body });
      if (path.endsWith('/estimate')) {
        const onlyEmpty = (body as { onlyEmpty?: boolean }).onlyEmpty;
        return (onlyEmpty ? { ...ESTIMATE, eligible: 3, skippedNotEmpty: 1 } : ESTIMATE) as T;
      }
      return run('queued', { succeeded: 0, failed: 0, skipped: 0 }) as T;
    },
    async get<T>(path: string): Promise<T> {
      calls.push({ method: 'GET', path });
      return ended as T;
    },
  };
  return { client, calls };
}

/** Streams of a test: stdin holding `answer`, stdout and stderr kept; a terminal or not. */
function streams(tty: boolean, answer = '') {
  const stdin = Object.assign(new PassThrough(), { isTTY: tty });
  stdin.end(answer);
  const out: string[] = [];
  const err: string[] = [];
  const writer = (into: string[]) =>
    ({
      isTTY: tty,
      write: (chunk: string | Uint8Array) => {
        into.push(String(chunk));
        return true;
      },
    }) as unknown as NodeJS.WriteStream;
  const io: CliStreams = { stdin, stdout: writer(out), stderr: writer(err) };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

const target = { tableId: 'tbl_1', columnId: 'col_1' };
const start = (options: ColumnRunOptions, client: ReturnType<typeof fakeClient>['client'], io: CliStreams) =>
  runColumn(new Command(), client, target, { interval: 1, ...options }, io);
const runPosts = (calls: { path: string }[]) => calls.filter((c) => c.path.endsWith('/run')).length;

test('at a terminal: the estimate, then the question; yes starts the run', async () => {
  const { client, calls } = fakeClient();
  const seen = streams(true, 'y\n');
  await start({}, client, seen.io);
  const shown = seen.stderr();
  assert.match(shown, 'This run takes 4 rows of the 5 in scope (1 left out by the run condition).');
  assert.match(shown, 'It costs up to 4 credits (1 a row); the balance is 50.');
  assert.match(
    shown,
    '1 row of these already holds a value and runs again, charged again: --only-empty skips them.',
  );
  assert.match(shown, 'Start the run? [y/N] ');
  assert.equal(
    calls.map((c) => c.path.split('/').at(-1)),
    ['estimate', 'estimate', 'run'],
  );
  assert.match(seen.stdout(), 'run_1', 'the started run is printed');
});

test('at a terminal: anything but yes starts nothing and fails', async () => {
  for (const answer of ['n\n', '\n', '']) {
    const { client, calls } = fakeClient();
    const seen = streams(true, answer);
    try {
      await start({}, client, seen.io);
      assert.unreachable('a run not confirmed must fail');
    } catch (error) {
      assert.instance(error, CliError);
      assert.match((error as Error).message, 'not started');
    }
    assert.is(runPosts(calls), 0, JSON.stringify(answer));
  }
});

test('--only-empty: no second estimate, and the question says nothing runs again', async () => {
  const { client, calls } = fakeClient();
  const seen = streams(true, 'yes\n');
  await start({ onlyEmpty: true }, client, seen.io);
  assert.not.match(seen.stderr(), 'runs again');
  assert.equal(
    calls
      .filter((c) => c.path.endsWith('/estimate'))
      .map((c) => (c.body as { onlyEmpty: boolean }).onlyEmpty),
    [true],
  );
});

test('--yes, or no terminal: no question, the run starts', async () => {
  for (const [tty, options] of [
    [true, { yes: true }],
    [false, {}],
  ] as const) {
    const { client, calls } = fakeClient();
    const seen = streams(tty);
    await start(options, client, seen.io);
    assert.is(seen.stderr(), '');
    assert.equal(
      calls.map((c) => c.path.split('/').at(-1)),
      ['run'],
    );
  }
  assert.is(
    asksBeforeRunning({ stdin: { isTTY: true } as never, stderr: { isTTY: false } as never }, false),
    false,
  );
});

test('--watch: a run that did not succeed fails with its own exit code', async () => {
  const cases = [
    ['succeeded', { succeeded: 4, failed: 0, skipped: 0 }, 0],
    ['failed', { succeeded: 0, failed: 4, skipped: 0 }, 3],
    ['partially_succeeded', { succeeded: 3, failed: 1, skipped: 0 }, 4],
    ['stopped', { succeeded: 1, failed: 0, skipped: 3 }, 5],
  ] as const;
  for (const [status, counts, code] of cases) {
    const { client } = fakeClient(run(status, counts));
    const seen = streams(false);
    const outcome = await start({ watch: true }, client, seen.io).then(
      () => 0,
      (error: unknown) => (error instanceof RunEndedError ? error.exitCode : -1),
    );
    assert.is(outcome, code, status);
    assert.is(RUN_EXIT_CODES[status], code);
    const last = seen.stdout().trim().split('\n').at(-1)!;
    assert.is(JSON.parse(last).status, status, 'the ended run is still printed');
  }
  const message = runEndedError(run('partially_succeeded', { succeeded: 3, failed: 1, skipped: 0 }))!.message;
  assert.is(
    message,
    'run run_1 ended partially_succeeded: 3 of 4 rows succeeded, 1 failed, 0 skipped ' +
      '(stk runs rows run_1 --status failed shows why)',
  );
});

test('the estimate as shown: not enough credits, and no filled row', () => {
  const text = describeEstimate({ ...ESTIMATE, skippedByCondition: 0, balance: 2, sufficient: false }, 0);
  assert.is(
    text,
    'This run takes 4 rows of the 5 in scope.\n' +
      'It costs up to 4 credits (1 a row); the balance is 2, NOT enough.\n' +
      'Rows whose cell already holds a value would run again: --only-empty skips them (none here).',
  );
});

test.run();
